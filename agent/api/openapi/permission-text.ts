/**
 * Who may call a route, in words, from its guard (`requirePermission(kind, action)`) and the
 * permission table (docs/permissions.md): the permissions that see the resources in detail,
 * then those that see them limited (`Access activity data: limited`).
 */
import { PERMISSION_GRANTS, type Action, type ResourceKind } from '../../../shared/permission-engine.js';
import { PERMISSION_INFO, PERMISSIONS, type Permission } from '../../../shared/permissions.js';

/** Kinds whose resources have no Detailed Only attribute: a limited view is the whole resource. */
const WHOLE_WHEN_LIMITED: readonly ResourceKind[] = ['output', 'logFile'];

const label = (permission: Permission): string => PERMISSION_INFO[permission].label;

/** Permissions in the order docs/permissions.md reads them: Read first, Access activity data last. */
const ORDER: readonly Permission[] = [...PERMISSIONS.filter((p) => p !== 'accessActivityData'), 'accessActivityData'];

export function permissionText(kind: ResourceKind, action: Action, detailedOnly = false): string {
  const grants = ORDER.map((permission) => ({ permission, grant: PERMISSION_GRANTS[permission][kind] }));
  if (action !== 'read') {
    return grants
      .filter(({ grant }) => grant?.[action] !== undefined)
      .map(({ permission }) => label(permission))
      .join(', ');
  }
  const detailed = grants
    .filter(({ grant }) => grant?.view?.view === 'detailed')
    .map(({ permission }) => label(permission));
  const limited = grants.filter(({ grant }) => grant?.view?.view === 'limited');
  if (detailedOnly || limited.length === 0) return detailed.join(', ');
  if (WHOLE_WHEN_LIMITED.includes(kind))
    return [...detailed, ...limited.map(({ permission }) => label(permission))].join(', ');
  const onlyThisAgent = kind === 'agent' && limited.every(({ grant }) => grant?.view?.scope === 'local');
  const note = onlyThisAgent ? 'this agent only, limited' : 'limited';
  return `${detailed.join(', ')}; ${limited.map(({ permission }) => `${label(permission)}: ${note}`).join(', ')}`;
}
