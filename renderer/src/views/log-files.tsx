/**
 * Log files: pick an output, see its files (period, size), open one in the viewer (virtual
 * scrolling, filter, follow mode for today's file) or download it.
 */
import { useState } from 'preact/hooks';
import type { LogFileView } from '../../../shared/console-api.js';
import { api } from '../api-client.js';
import { ErrorMessage } from '../components/error-message.js';
import { DataTable } from '../components/data-table.js';
import { Page } from '../components/page.js';
import { formatSize, formatSpan, formatTime } from '../format.js';
import { useResource } from '../use-resource.js';
import { LogViewer } from './log-viewer.js';

function period(file: LogFileView): string {
  return file.activityFrom ? formatSpan(file.activityFrom, file.activityTo) : 'no records';
}

export function LogFilesPage() {
  const outputs = useResource(() => api.outputs(), []);
  const [outputId, setOutputId] = useState<string>('');
  const files = useResource(() => api.logFiles(outputId || undefined), [outputId], 10_000);
  const [open, setOpen] = useState<LogFileView | null>(null);
  const logOutputs = (outputs.data ?? []).filter((o) => o.type === 'LogFile');

  if (open) {
    return (
      <Page title="Log files">
        <LogViewer file={open} onClose={() => setOpen(null)} />
      </Page>
    );
  }
  return (
    <Page title="Log files">
      <p class="intro">Each log file output writes one file a day (UTC) in the data folder; closed days are zipped.</p>
      <ErrorMessage error={outputs.error} prefix="The outputs could not be read" />
      <div class="field inline-field">
        <label for="output">Output</label>
        <select
          id="output"
          value={outputId}
          onChange={(e) => setOutputId((e.currentTarget as HTMLSelectElement).value)}
        >
          <option value="">All log files</option>
          {logOutputs.map((o) => (
            <option key={o.id} value={o.id}>
              {o.ownerName}: {o.description}
            </option>
          ))}
        </select>
      </div>
      <ErrorMessage error={files.error} prefix="The log files could not be listed" />
      {files.data && files.data.length === 0 ? (
        <p>No log file yet: files appear with the first recorded activity.</p>
      ) : null}
      {files.data && files.data.length > 0 ? (
        <DataTable
          caption="Log files"
          columns={['File', 'Activity', { label: 'Size', numeric: true }, 'Last written']}
          actions
        >
          {files.data.map((file) => (
            <tr key={file.id}>
              <th scope="row" class="mono">
                {file.id}
                {file.current ? <span class="badge ok">today</span> : null}
              </th>
              <td>{period(file)}</td>
              <td class="number">{formatSize(file.size)}</td>
              <td>{formatTime(file.updatedAt)}</td>
              <td class="row-actions">
                <button type="button" class="small" onClick={() => setOpen(file)} aria-label={`View ${file.id}`}>
                  View
                </button>
                <a
                  class="button secondary small"
                  href={api.logDownloadUrl(file.id)}
                  download={file.id}
                  aria-label={`Download ${file.id}`}
                >
                  Download
                </a>
                {file.sidecarId ? (
                  <a
                    class="button secondary small"
                    href={api.logDownloadUrl(file.sidecarId)}
                    download={file.sidecarId}
                    aria-label={`Download the signatures of ${file.id}`}
                    title="The sidecar with the chain and signatures of this file's lines (vigil verify --logs)"
                  >
                    Signatures
                  </a>
                ) : null}
              </td>
            </tr>
          ))}
        </DataTable>
      ) : null}
    </Page>
  );
}
