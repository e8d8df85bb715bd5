/**
 * The "Detailed Only" attributes of each agent API resource (docs/agent-api.md): a client whose only
 * view of a resource is the limited one (Access activity data) gets it without them. The
 * choices, and why, are in docs/agent-api.md ("Limited and detailed views"). Pure.
 */
export { AGENT_DETAILED_ONLY } from './agent-resource.js';

/** The monitoring configuration: which folders, how often rescanned, the status history. */
export const HOST_DETAILED_ONLY = [
  'includePaths',
  'excludePaths',
  'rescanIntervalMinutes',
  'monitorReads',
  'statusHistoryUrl',
] as const;

/** Where and as whom the directory is read, and the policies (Access activity data never sees policies). */
export const DOMAIN_DETAILED_ONLY = [
  'ldapServer',
  'userName',
  'baseDn',
  'pollingIntervalSeconds',
  'tls',
  'caFile',
  'policiesUrl',
] as const;

/** The policy document (docs/agent-api.md). Every permission that sees policies sees them detailed. */
export const POLICY_DETAILED_ONLY = ['xml'] as const;

/** A copy of `resource` without `keys`. */
export function withoutKeys<T extends object, K extends keyof T>(resource: T, keys: readonly K[]): Omit<T, K> {
  const copy: Partial<T> = { ...resource };
  for (const key of keys) delete copy[key];
  return copy as Omit<T, K>;
}
