/**
 * The permission engine of the agent API: what a client application with a given set of
 * permissions may see and change. Pure and table-driven; every agent API route asks it.
 *
 * The table below is docs/permissions.md "Effect of permissions on returned resources" plus the decisions
 * of docs/permissions.md where the permission table is silent (docs/permissions.md explains each row):
 * - Read: every agent, host, domain, output and policy in the detailed view; log files may be
 *   listed but not downloaded.
 * - Access activity data: only the agent hosting the API, its hosts, its domain and their
 *   outputs, in the limited view; no policies; list and download that agent's log files.
 * - Modify host / Modify agent / Policy change: change their resources, and read what they
 *   may change (Policy change also reads the domains that hold the policies).
 * Permissions combine: the widest view and every right any of them grants.
 *
 * Rules for answers (docs/permissions.md):
 * - a collection silently drops what the client may not see;
 * - a resource named by id that the client may not see (or change) → 401, never 403;
 * - 404 only when the client could see (or change) such a resource and it does not exist.
 */
import { PERMISSIONS, type Permission } from './permissions.js';

export const RESOURCE_KINDS = ['agent', 'host', 'domain', 'output', 'policy', 'logFile'] as const;
export type ResourceKind = (typeof RESOURCE_KINDS)[number];

/** `limited` omits the "Detailed Only" attributes (docs/agent-api.md). */
export type View = 'detailed' | 'limited';

/**
 * Where a resource stands relative to the agent hosting the API: `local` is that agent itself,
 * its hosts, its domain, the outputs of those, and its log files; `other` is everything else.
 */
export type Locality = 'local' | 'other';

/** `read` = list or get; `write` = create, modify, enable/disable, delete; `download` = log file content. */
export type Action = 'read' | 'write' | 'download';

/** Which resources of a kind a grant covers. */
export type Scope = 'local' | 'all';

export interface KindGrant {
  view?: { view: View; scope: Scope };
  write?: Scope;
  download?: Scope;
}

export type PermissionGrants = Readonly<Record<Permission, Readonly<Partial<Record<ResourceKind, KindGrant>>>>>;

const DETAILED_ALL = { view: 'detailed', scope: 'all' } as const;
const LIMITED_LOCAL = { view: 'limited', scope: 'local' } as const;

/** The permission table of docs/permissions.md, with its decisions, one row per permission. */
export const PERMISSION_GRANTS: PermissionGrants = {
  read: {
    agent: { view: DETAILED_ALL },
    host: { view: DETAILED_ALL },
    domain: { view: DETAILED_ALL },
    output: { view: DETAILED_ALL },
    policy: { view: DETAILED_ALL },
    // docs/permissions.md: Read may list log files but not download them.
    logFile: { view: DETAILED_ALL },
  },
  accessActivityData: {
    agent: { view: LIMITED_LOCAL },
    host: { view: LIMITED_LOCAL },
    domain: { view: LIMITED_LOCAL },
    output: { view: LIMITED_LOCAL },
    logFile: { view: LIMITED_LOCAL, download: 'local' },
  },
  modifyHost: {
    host: { view: DETAILED_ALL, write: 'all' },
    output: { view: DETAILED_ALL, write: 'all' },
  },
  modifyAgent: {
    agent: { view: DETAILED_ALL, write: 'all' },
  },
  policyChange: {
    policy: { view: DETAILED_ALL, write: 'all' },
    domain: { view: DETAILED_ALL },
  },
};

function covers(scope: Scope | undefined, locality: Locality): boolean {
  return scope === 'all' || (scope === 'local' && locality === 'local');
}

/** The outcome for a resource named by id. */
export type ByIdDecision =
  | { outcome: 'allowed'; view: View }
  | { outcome: 'unauthorized' } // 401 insufficient_permission (docs/permissions.md)
  | { outcome: 'not_found' }; // 404: the client could see such a resource, and there is none

/**
 * What one client application may do, computed from its permissions. Build one per request
 * (cheap) from the client's current permissions, so a change applies on the next request.
 */
export class AccessPolicy {
  private readonly permissions: ReadonlySet<Permission>;

  constructor(
    permissions: Iterable<Permission>,
    private readonly grants: PermissionGrants = PERMISSION_GRANTS,
  ) {
    this.permissions = new Set(permissions);
  }

  private grantsFor(kind: ResourceKind): KindGrant[] {
    const out: KindGrant[] = [];
    for (const permission of PERMISSIONS) {
      const grant = this.permissions.has(permission) ? this.grants[permission][kind] : undefined;
      if (grant) out.push(grant);
    }
    return out;
  }

  /** The view of a resource of `kind` at `locality`, or null when the client may not see it. */
  view(kind: ResourceKind, locality: Locality): View | null {
    let best: View | null = null;
    for (const grant of this.grantsFor(kind)) {
      if (!grant.view || !covers(grant.view.scope, locality)) continue;
      if (grant.view.view === 'detailed') return 'detailed';
      best = 'limited';
    }
    return best;
  }

  /** Whether the client may perform `action` on a resource of `kind` at `locality`. */
  allows(kind: ResourceKind, action: Action, locality: Locality): boolean {
    if (action === 'read') return this.view(kind, locality) !== null;
    return this.grantsFor(kind).some((grant) => covers(action === 'write' ? grant.write : grant.download, locality));
  }

  /**
   * Whether the client may perform `action` on at least some resource of `kind`: the check a
   * route declares where it is registered; failing it means 401 before the handler runs.
   */
  allowsAny(kind: ResourceKind, action: Action): boolean {
    return this.allows(kind, action, 'local') || this.allows(kind, action, 'other');
  }

  /**
   * Collections (docs/permissions.md): keeps the resources the client may see, each with its view,
   * in the original order. Nothing says how many were dropped.
   */
  filter<T>(
    kind: ResourceKind,
    items: readonly T[],
    localityOf: (item: T) => Locality,
  ): Array<{ item: T; view: View }> {
    const out: Array<{ item: T; view: View }> = [];
    for (const item of items) {
      const view = this.view(kind, localityOf(item));
      if (view) out.push({ item, view });
    }
    return out;
  }

  /**
   * A resource named by id (docs/permissions.md). `locality` is where the resource
   * is, or, when it does not exist, where it would have been if the request can tell (a log
   * file of this agent is `local`; an unknown host id is `other`).
   */
  byId(kind: ResourceKind, action: Action, target: { exists: boolean; locality: Locality }): ByIdDecision {
    if (!this.allows(kind, action, target.locality)) return { outcome: 'unauthorized' };
    if (!target.exists) return { outcome: 'not_found' };
    // A write or download names a resource the client must also be able to see the result of;
    // every grant that writes or downloads also reads, so a view exists here.
    return { outcome: 'allowed', view: this.view(kind, target.locality) ?? 'limited' };
  }
}
