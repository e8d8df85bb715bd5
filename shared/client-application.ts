/**
 * Client applications of the agent API as the console and the CLI show them, and the rule for
 * their names (checked by the agent, and by the console while the operator types). Pure.
 */
import type { Permission } from './permissions.js';

export const CLIENT_NAME_MAX = 100;

/** Why a (trimmed) client name cannot be used, or null when it can. */
export function clientNameProblem(name: string): string | null {
  if (name.trim() === '') return 'the name must not be empty';
  if (name !== name.trim()) return 'the name must not start or end with spaces';
  if (name.length > CLIENT_NAME_MAX) return `the name must be at most ${CLIENT_NAME_MAX} characters`;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(name)) return 'the name must not contain control characters';
  return null;
}

/** A client application in lists and after a change. The secret is never part of it. */
export interface ClientApplicationView {
  clientId: string;
  name: string;
  permissions: Permission[];
  /** ISO 8601 UTC; 72 hours after the secret was generated (docs/authentication.md). */
  secretExpiresAt: string;
  /** True once the secret can no longer obtain tokens; refresh tokens keep working. */
  secretExpired: boolean;
  createdAt: string;
}

/** The answer to "add" and "regenerate secret": the only time the secret is shown. */
export interface ClientCredentials {
  clientId: string;
  clientSecret: string;
  secretExpiresAt: string;
  permissions: Permission[];
}
