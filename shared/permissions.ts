/**
 * The five permissions of a client application (docs/permissions.md "Permissions", release 10.0 set), in
 * the two spellings README.md fixes: the CLI word (`--permission modify-host`) and the JSON
 * name used in API bodies, settings and CLI output (`modifyHost`). Pure: the console web app
 * imports this file for its check boxes and their help text.
 */

export const PERMISSIONS = ['accessActivityData', 'read', 'policyChange', 'modifyHost', 'modifyAgent'] as const;

/** A permission by its JSON name. */
export type Permission = (typeof PERMISSIONS)[number];

export interface PermissionInfo {
  name: Permission;
  /** The word the `vigil` command takes. */
  cliWord: string;
  /** The label the console shows (docs/permissions.md). */
  label: string;
  /** One line from the permission table (docs/permissions.md). */
  explanation: string;
}

export const PERMISSION_INFO: Readonly<Record<Permission, PermissionInfo>> = {
  accessActivityData: {
    name: 'accessActivityData',
    cliWord: 'access-activity-data',
    label: 'Access activity data',
    explanation:
      'Minimal rights to list and download the log files (limited view of this agent, its hosts and domain).',
  },
  read: {
    name: 'read',
    cliWord: 'read',
    label: 'Read',
    explanation:
      'Read-only access to all information about all agents, domains and hosts; does not allow downloading log files.',
  },
  policyChange: {
    name: 'policyChange',
    cliWord: 'policy-change',
    label: 'Policy change',
    explanation: 'Add, modify and delete Active Directory monitoring policies.',
  },
  modifyHost: {
    name: 'modifyHost',
    cliWord: 'modify-host',
    label: 'Modify host',
    explanation: 'Add, modify, enable, disable and delete hosts and their outputs.',
  },
  modifyAgent: {
    name: 'modifyAgent',
    cliWord: 'modify-agent',
    label: 'Modify agent',
    explanation: 'Add, modify and delete agents.',
  },
};

export function isPermission(value: unknown): value is Permission {
  return typeof value === 'string' && (PERMISSIONS as readonly string[]).includes(value);
}

/** The JSON name for a CLI word (`modify-host` → `modifyHost`), or null for an unknown word. */
export function permissionFromCliWord(word: string): Permission | null {
  for (const info of Object.values(PERMISSION_INFO)) if (info.cliWord === word) return info.name;
  return null;
}

/** Deduplicates and sorts into the canonical order of PERMISSIONS, so stored lists compare equal. */
export function normalizePermissions(permissions: Iterable<Permission>): Permission[] {
  const set = new Set(permissions);
  return PERMISSIONS.filter((p) => set.has(p));
}

/** A sentence listing the accepted words, for error messages. */
export function describePermissionWords(kind: 'cli' | 'json'): string {
  return Object.values(PERMISSION_INFO)
    .map((info) => (kind === 'cli' ? info.cliWord : info.name))
    .join(', ');
}
