/**
 * "What is monitored" on the overview: each host with its status, an Enable/Disable button, the
 * folders it watches (each with Remove) and a form to add one; each output with its counters and
 * an Enable/Disable button. Changes go to the agent at once (it records who made them) and the
 * monitoring follows; errors are shown in the agent's words next to what they concern.
 */
import { useState } from 'preact/hooks';
import type { HostView, OutputView } from '../../../shared/console-api.js';
import { api, ConsoleApiError, errorText } from '../api-client.js';
import { ErrorMessage } from '../components/error-message.js';
import { DataTable } from '../components/data-table.js';
import { RowActions } from '../components/row-actions.js';
import { StatusBadge } from '../components/status-badge.js';
import { formatCount, formatSize, formatTime } from '../format.js';
import { useAction } from '../use-action.js';

/** Runs one change at a time for a part of the page, keeping its error and its announcement. */
/** A change to a host from its card: the action, then the host list read again and the notice. */
function useChange(onChanged: () => Promise<void>) {
  const action = useAction();
  const [notice, setNotice] = useState('');
  const run = async (change: () => Promise<unknown>, done: string): Promise<boolean> => {
    setNotice('');
    const ok = await action.run(async () => {
      await change();
      setNotice(done);
      await onChanged();
    });
    return ok;
  };
  return { busy: action.busy, error: action.error, notice, run, clearError: action.clearError };
}

function AddFolder({ host, onChanged }: { host: HostView; onChanged: () => Promise<void> }) {
  const [folder, setFolder] = useState('');
  const change = useChange(onChanged);
  const id = `add-folder-${host.id}`;
  const fieldError = change.error instanceof ConsoleApiError && change.error.field === 'path' ? change.error : null;
  const submit = async (event: Event): Promise<void> => {
    event.preventDefault();
    const wanted = folder.trim();
    if (await change.run(() => api.addFolder(host.id, wanted), `Now watching ${wanted}.`)) setFolder('');
  };
  return (
    <form class="add-folder" onSubmit={submit} noValidate>
      <label for={id}>Folder to watch on {host.name}</label>
      <div class="with-button">
        <input
          id={id}
          class="mono"
          value={folder}
          aria-invalid={fieldError ? 'true' : undefined}
          aria-describedby={`${id}-help ${id}-error`}
          onInput={(e) => {
            setFolder((e.currentTarget as HTMLInputElement).value);
            change.clearError();
          }}
        />
        <button type="submit" class="secondary" disabled={change.busy || folder.trim() === ''}>
          Add folder
        </button>
      </div>
      <p id={`${id}-help`} class="hint">
        The full path of an existing folder; everything in it is watched from now on.
      </p>
      <p id={`${id}-error`} class="field-error">
        {fieldError ? fieldError.message : ''}
      </p>
      {change.error && !fieldError ? <ErrorMessage error={change.error} prefix="The folder was not added" /> : null}
      <p role="status" class="notice">
        {change.notice}
      </p>
    </form>
  );
}

function Folders({ host, onChanged }: { host: HostView; onChanged: () => Promise<void> }) {
  const change = useChange(onChanged);
  if (host.includePaths.length === 0) {
    return (
      <p class="warning-box">
        No folder is watched on this host, so no file activity is recorded. Add one below: type the full path of a
        folder and choose Add folder.
      </p>
    );
  }
  return (
    <>
      <p class="muted" id={`folders-${host.id}`}>
        Folders watched, with everything in them:
      </p>
      <ul class="paths folders" aria-labelledby={`folders-${host.id}`}>
        {host.includePaths.map((p) => (
          <li key={p}>
            <span class="mono folder">{p}</span>
            <button
              type="button"
              class="secondary small"
              aria-label={`Remove folder ${p}`}
              disabled={change.busy}
              onClick={async () => {
                await change.run(() => api.removeFolder(host.id, p), `Stopped watching ${p}.`);
                // The button is gone with its folder: keep the keyboard in this host's part.
                document.getElementById(`add-folder-${host.id}`)?.focus();
              }}
            >
              Remove
            </button>
          </li>
        ))}
      </ul>
      <ErrorMessage error={change.error} prefix="The folder was not removed" />
      <p role="status" class="notice">
        {change.notice}
      </p>
    </>
  );
}

function OutputsOf({ outputs, onChanged }: { outputs: OutputView[]; onChanged: () => Promise<void> }) {
  const change = useChange(onChanged);
  if (outputs.length === 0) return <p>This host has no output: its activity is only in the audit database.</p>;
  return (
    <>
      <DataTable caption="Outputs" columns={['Output', 'Status', 'Written']} actions variant="compact" showCaption>
        {outputs.map((o) => (
          <tr key={o.id}>
            <td>
              {o.description}
              {o.enabled ? '' : ' (disabled)'}
            </td>
            <td>
              <StatusBadge status={o.status} />
            </td>
            <td>
              {formatCount(o.reportedCount)} records
              {o.type === 'LogFile'
                ? `, ${o.filesCount} ${o.filesCount === 1 ? 'file' : 'files'}, ${formatSize(o.filesSize)}`
                : ''}
              {o.droppedCount > 0 ? `, ${formatCount(o.droppedCount)} not written` : ''}
            </td>
            <RowActions
              actions={[
                {
                  label: o.enabled ? 'Disable' : 'Enable',
                  name: `${o.enabled ? 'Disable' : 'Enable'} output ${o.description}`,
                  disabled: change.busy,
                  onClick: () =>
                    void change.run(
                      () => api.setOutputEnabled(o.id, !o.enabled),
                      `${o.description}: ${o.enabled ? 'disabled, nothing is written there now' : 'enabled'}.`,
                    ),
                },
              ]}
            />
          </tr>
        ))}
      </DataTable>
      <ErrorMessage error={change.error} prefix="The output was not changed" />
      <p role="status" class="notice">
        {change.notice}
      </p>
    </>
  );
}

function Host({ host, outputs, onChanged }: { host: HostView; outputs: OutputView[]; onChanged: () => Promise<void> }) {
  const toggle = useChange(onChanged);
  const titleId = `host-${host.id}`;
  return (
    <article class="host" aria-labelledby={titleId}>
      <div class="host-head">
        <h3 id={titleId}>
          <span class="visually-hidden">Host </span>
          {host.name}
        </h3>
        <span class="muted">{host.enabled ? host.type : `${host.type}, disabled`}</span>
        <StatusBadge status={host.status} />
        <button
          type="button"
          class={host.enabled ? 'secondary small' : 'small'}
          aria-label={`${host.enabled ? 'Disable' : 'Enable'} host ${host.name}`}
          disabled={toggle.busy}
          onClick={() =>
            void toggle.run(
              () => api.setHostEnabled(host.id, !host.enabled),
              host.enabled ? `${host.name} is disabled: its folders are not watched.` : `${host.name} is enabled.`,
            )
          }
        >
          {host.enabled ? 'Disable' : 'Enable'}
        </button>
      </div>
      <ErrorMessage error={toggle.error} prefix={`${host.name} was not changed`} />
      <p role="status" class="notice">
        {toggle.notice}
      </p>
      <Folders host={host} onChanged={onChanged} />
      {host.excludePaths.length > 0 ? (
        <p class="muted">
          Left out: <span class="mono">{host.excludePaths.join(', ')}</span>
        </p>
      ) : null}
      <AddFolder host={host} onChanged={onChanged} />
      <p class="muted">
        {formatCount(host.receivedCount)} records since the agent started
        {host.lastEventTime ? `, the last at ${formatTime(host.lastEventTime)}` : ''}
        {host.droppedCount > 0 ? `, ${formatCount(host.droppedCount)} could not be recorded` : ''}.
      </p>
      <p class="muted" data-testid="attribution">
        {host.attribution === 'process'
          ? 'Records name the account and program that acted.'
          : `Records cannot name who acted${host.attributionReason ? ` (${host.attributionReason})` : ''}.`}
      </p>
      <OutputsOf outputs={outputs.filter((o) => o.hostId === host.id)} onChanged={onChanged} />
    </article>
  );
}

export function MonitoredHosts({
  hosts,
  outputs,
  outputsError,
  onChanged,
}: {
  hosts: HostView[];
  outputs: OutputView[] | null;
  outputsError: unknown;
  onChanged: () => Promise<void>;
}) {
  return (
    <section class="panel" aria-labelledby="monitored-title">
      <h2 id="monitored-title">What is monitored</h2>
      {hosts.length === 0 ? <p>No host is configured: nothing is monitored.</p> : null}
      {outputsError ? <p class="error">The outputs could not be read: {errorText(outputsError)}</p> : null}
      {hosts.map((host) => (
        <Host key={host.id} host={host} outputs={outputs ?? []} onChanged={onChanged} />
      ))}
      <p class="muted">
        Changes apply at once and are recorded in the activity log as made by the console. A host enabled again, or a
        folder added, starts from what is there now: earlier changes are not reported.
      </p>
    </section>
  );
}
