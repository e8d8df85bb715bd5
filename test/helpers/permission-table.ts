/**
 * The table of permission effects (docs/permissions.md "Effect of permissions on returned
 * resources") with docs/permissions.md's decisions, written out independently of the engine, as the
 * single source of the permission matrix tests (unit and HTTP).
 *
 *   D = every resource of the kind, detailed view     L = only the local ones, limited view
 *   - = none
 */
import { RESOURCE_KINDS, type Locality, type ResourceKind, type View } from '../../shared/permission-engine.js';
import { PERMISSIONS, type Permission } from '../../shared/permissions.js';

type Cell = 'D' | 'L' | '-';

//                           agent host domain output policy logFile
const TABLE: Record<Permission, string> = {
  read: /*                */ 'D     D    D      D      D      D', // logFile: list, never download
  accessActivityData: /*  */ 'L     L    L      L      -      L', // and download local log files
  modifyHost: /*          */ '-     D    -      D      -      -', // reads what it may change
  modifyAgent: /*         */ 'D     -    -      -      -      -',
  policyChange: /*        */ '-     -    D      -      D      -', // domains hold the policies
};

/** Which kinds each permission may change (docs/permissions.md permissions table). */
export const WRITES: Record<Permission, readonly ResourceKind[]> = {
  read: [],
  accessActivityData: [],
  modifyHost: ['host', 'output'],
  modifyAgent: ['agent'],
  policyChange: ['policy'],
};

function cell(permission: Permission, kind: ResourceKind): Cell {
  const cells = TABLE[permission].trim().split(/\s+/) as Cell[];
  return cells[RESOURCE_KINDS.indexOf(kind)]!;
}

/** The expected view for a permission set, by the table: the widest any permission gives. */
export function expectedView(permissions: readonly Permission[], kind: ResourceKind, locality: Locality): View | null {
  let best: View | null = null;
  for (const permission of permissions) {
    const c = cell(permission, kind);
    if (c === 'D') return 'detailed';
    if (c === 'L' && locality === 'local') best = 'limited';
  }
  return best;
}

export function expectedWrite(permissions: readonly Permission[], kind: ResourceKind): boolean {
  return permissions.some((p) => WRITES[p].includes(kind));
}

/** Only Access activity data downloads, and only this agent's files. */
export function expectedDownload(permissions: readonly Permission[], locality: Locality): boolean {
  return permissions.includes('accessActivityData') && locality === 'local';
}

/** Every subset of the five permissions (32), the empty set first. */
export function allPermissionSets(): Permission[][] {
  const sets: Permission[][] = [];
  for (let mask = 0; mask < 1 << PERMISSIONS.length; mask++) {
    sets.push(PERMISSIONS.filter((_, i) => mask & (1 << i)));
  }
  return sets;
}

export function label(permissions: readonly Permission[]): string {
  return permissions.length === 0 ? '(none)' : permissions.join('+');
}
