/**
 * Output settings → the Output resource (schemas/output-schemas.ts). The settings and the API
 * name the fields alike, so a write needs no mapping.
 */
import type { AnyOutput } from '../../resources/output-service.js';
import type { StatusRegistry } from '../../status/status-registry.js';
import type { OutputView } from '../schemas/output-schemas.js';
import type { ApiLinks } from './api-links.js';

export interface OutputViewDeps {
  links: ApiLinks;
  localAgentId: string;
  status: StatusRegistry;
  /** When the agent started: the time of a status nothing has reported yet. */
  since: string;
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

export function outputView(output: AnyOutput, deps: OutputViewDeps): OutputView {
  const { links } = deps;
  const hostId = output.hostId ?? null;
  const domainId = output.domainId ?? null;
  const url = hostId !== null ? links.hostOutput(hostId, output.id) : links.domainOutput(domainId!, output.id);
  const runtime = deps.status.output(output.id);
  const view: OutputView = {
    id: output.id,
    url,
    hostId,
    hostUrl: hostId !== null ? links.host(hostId) : null,
    domainId,
    domainUrl: domainId !== null ? links.domain(domainId) : null,
    agentsIds: [deps.localAgentId],
    logsUrl: output.type === 'LogFile' ? links.logs(output.id) : null,
    isEnabled: output.isEnabled,
    type: output.type,
    comment: output.comment,
    fileFilter: output.fileFilter,
    status: runtime?.status ?? { updatedAt: deps.since, type: 'OK', summary: 'Starting', details: '' },
    statusHistoryUrl: hostId !== null ? `${url}/statusHistory` : null,
    stats: runtime?.stats ?? EMPTY_STATS,
  };
  if (output.logFile) view.logFile = output.logFile;
  if (output.syslog) view.syslog = output.syslog;
  return view;
}
