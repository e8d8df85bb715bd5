/**
 * The one host type a workstation agent can monitor: its own file system, named after the
 * platform it runs on (docs/agent-api.md). Every other host type of docs/agent-api.md (NetApp,
 * SharePoint, SqlServer...) is refused with a message saying why.
 */
import { localHostType, type HostType } from '../config/monitoring-schema.js';
import { invalidField } from '../util/service-error.js';

export function checkHostType(type: unknown, field = 'type', platform: NodeJS.Platform = process.platform): HostType {
  const local = localHostType(platform);
  if (type === local) return local;
  const named = typeof type === 'string' && type !== '' ? `a ${type} host` : 'a host of another type';
  throw invalidField(
    field,
    `this agent runs on ${local} and monitors only its own file system (type "${local}"); it cannot monitor ${named}`,
  );
}
