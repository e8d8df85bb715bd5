/**
 * Output settings → the Output resource (schemas/output-schemas.ts), and a write back to
 * settings fields. The API says `isEnabled` and `logFile.daysToRetain` where the settings say
 * `enabled` and `logFile.retentionDays`; `renameOutputField` turns a settings field named in an
 * error into the API's name.
 */
import type { LogFileOptions } from '../../config/monitoring-schema.js';
import type { AnyOutput, OutputFields, OutputState } from '../../resources/output-service.js';
import type { StatusRegistry } from '../../status/status-registry.js';
import type { StatusView } from '../schemas/common-schemas.js';
import type { OutputView, OutputWrite } from '../schemas/output-schemas.js';
import type { ApiLinks } from './api-links.js';

export interface OutputViewDeps {
  links: ApiLinks;
  localAgentId: string;
  status: StatusRegistry;
  /** When the agent started: the time of a status nothing has reported yet. */
  since: string;
}

type LogFileView = NonNullable<OutputView['logFile']>;

function logFileView(options: LogFileOptions): LogFileView {
  const view: LogFileView = {
    format: options.format,
    daysToRetain: options.retentionDays,
    headerRow: options.headerRow,
    zipClosedFiles: options.zipClosedFiles,
  };
  if (options.fileName !== undefined) view.fileName = options.fileName;
  return view;
}

const EMPTY_STATS: OutputView['stats'] = {
  reportedAt: null,
  reportedCount: 0,
  lastEventTime: null,
  filesCount: 0,
  filesSize: 0,
  archiveFilesCount: 0,
  archiveFilesSize: 0,
  droppedCount: 0,
};

/** Domain outputs get nothing to write: this agent has no Active Directory source. */
function domainOutputStatus(enabled: boolean, since: string): StatusView {
  return enabled
    ? {
        updatedAt: since,
        type: 'Warning',
        summary: 'No Active Directory activity',
        details: 'This agent does not monitor Active Directory, so this output receives no records.',
      }
    : { updatedAt: since, type: 'OK', summary: 'Disabled', details: '' };
}

export function outputView(output: AnyOutput, deps: OutputViewDeps): OutputView {
  const { links } = deps;
  const hostId = output.hostId ?? null;
  const domainId = output.domainId ?? null;
  const url = hostId !== null ? links.hostOutput(hostId, output.id) : links.domainOutput(domainId!, output.id);
  const runtime = hostId !== null ? deps.status.output(output.id) : undefined;
  const view: OutputView = {
    id: output.id,
    url,
    hostId,
    hostUrl: hostId !== null ? links.host(hostId) : null,
    domainId,
    domainUrl: domainId !== null ? links.domain(domainId) : null,
    agentsIds: [deps.localAgentId],
    logsUrl: output.type === 'LogFile' ? links.logs(output.id) : null,
    isEnabled: output.enabled,
    type: output.type,
    comment: output.comment,
    fileFilter: output.fileFilter,
    status:
      runtime?.status ??
      (hostId !== null
        ? { updatedAt: deps.since, type: 'OK', summary: 'Starting', details: '' }
        : domainOutputStatus(output.enabled, deps.since)),
    statusHistoryUrl: hostId !== null ? `${url}/statusHistory` : null,
    stats: runtime?.stats ?? EMPTY_STATS,
  };
  if (output.logFile) view.logFile = logFileView(output.logFile);
  if (output.syslog) view.syslog = output.syslog;
  return view;
}

/** The writable fields of an output, by API name: what a merge patch applies to. */
export function outputWritable(output: OutputState): Record<string, unknown> {
  const writable: Record<string, unknown> = {
    type: output.type,
    isEnabled: output.enabled,
    comment: output.comment,
    fileFilter: output.fileFilter,
  };
  if (output.logFile) writable['logFile'] = logFileView(output.logFile);
  if (output.syslog) writable['syslog'] = output.syslog;
  return writable;
}

/** A validated API write → the output's settings fields. */
export function outputFieldsFromWrite(write: OutputWrite): OutputFields {
  const fields: OutputFields = { type: write.type, enabled: write.isEnabled, comment: write.comment };
  if (write.logFile) {
    const { daysToRetain, ...rest } = write.logFile;
    fields.logFile = { ...rest, retentionDays: daysToRetain };
  }
  if (write.syslog) fields.syslog = write.syslog;
  if (write.fileFilter) fields.fileFilter = write.fileFilter;
  return fields;
}

/** A settings field of an output (in an error) → its API name. */
export function renameOutputField(field: string): string {
  return field
    .replace(/(^|\.)enabled$/, '$1isEnabled')
    .replace(/(^|\.)logFile\.retentionDays$/, '$1logFile.daysToRetain');
}
