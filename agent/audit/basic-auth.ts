/**
 * HTTP Basic authentication of audit API requests (RFC 7617) against audit users. Missing or
 * wrong credentials get 401 with an empty body (docs/audit-api.md) and a Basic challenge; too many
 * failures for a user or from an address get 429 (login-limiter.ts); a user without the role
 * an endpoint needs gets 403 (docs/decisions.md: the audit API says 403 where the agent API
 * keeps the product's 401).
 */
import type { AuditRole } from '../config/settings-schema.js';
import { PasswordChecksBusyError, type AuditUserService, type AuditUserView } from '../users/audit-user-service.js';
import { EmptyResponse } from './audit-errors.js';
import type { LoginLimiter } from './login-limiter.js';

export const BASIC_CHALLENGE = 'Basic realm="Vigil", charset="UTF-8"';

export interface BasicCredentials {
  name: string;
  password: string;
}

/** Credentials from an Authorization header, or null when there are none or they are malformed. */
export function parseBasic(header: string | undefined): BasicCredentials | null {
  const match = /^Basic[ ]+([A-Za-z0-9+/]+={0,2})[ ]*$/i.exec(header ?? '');
  if (!match) return null;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return null;
  return { name: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

const unauthorized = (): EmptyResponse =>
  new EmptyResponse(401, { 'WWW-Authenticate': BASIC_CHALLENGE }, 'unauthorized');

const tooMany = (seconds: number, reason: string): EmptyResponse =>
  new EmptyResponse(429, { 'Retry-After': String(seconds) }, reason);

/**
 * The audit user of a request. The limiter counts the attempt before its password is checked
 * and gives it back on success (login-limiter.ts); beyond its limits, or when too many password
 * checks wait already, the answer is 429 with Retry-After, without checking the password.
 */
export async function authenticate(
  users: AuditUserService,
  limiter: LoginLimiter,
  address: string,
  header: string | undefined,
): Promise<AuditUserView> {
  const wait = limiter.retryAfter(address);
  if (wait > 0) throw tooMany(wait, 'too many failed logins from this address');
  const credentials = parseBasic(header);
  if (!credentials) throw unauthorized();
  const start = limiter.begin(address, credentials.name);
  if (!start.ok) throw tooMany(start.retryAfterSeconds, 'too many failed logins for this user');
  let user: AuditUserView | null;
  try {
    user = await users.authenticate(credentials.name, credentials.password);
  } catch (error) {
    start.attempt.cancel();
    if (error instanceof PasswordChecksBusyError) throw tooMany(1, 'too many logins are being checked');
    throw error;
  }
  if (!user) {
    start.attempt.fail();
    throw unauthorized();
  }
  start.attempt.succeed();
  return user;
}

export function requireRole(user: AuditUserView, role: AuditRole): void {
  if (!user.roles.includes(role)) throw new EmptyResponse(403, {}, `user lacks the ${role} role`);
}
