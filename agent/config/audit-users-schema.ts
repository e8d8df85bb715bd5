/**
 * Users of the audit integration API (docs/audit-api.md): the `auditUsers` section of settings.json.
 */
import { z } from 'zod';
import { AUDIT_USER_ROLES } from '../../shared/console-api.js';

/** Roles of audit API users (docs/audit-api.md): `reader` may enumerate and search, `contributor` may write. */
export const AUDIT_ROLES = AUDIT_USER_ROLES;

/**
 * A password hashed with scrypt; the parameters are stored with each hash so they can be raised
 * later without invalidating existing passwords (docs/authentication.md "Human passwords").
 */
export const passwordHashSchema = z.strictObject({
  algorithm: z.literal('scrypt'),
  N: z
    .number()
    .int()
    .min(1024)
    .max(2 ** 22)
    .refine((n) => (n & (n - 1)) === 0, 'must be a power of two'),
  r: z.number().int().min(1).max(32),
  p: z.number().int().min(1).max(16),
  keyLength: z.number().int().min(16).max(128),
  salt: z.base64(),
  hash: z.base64(),
});

/**
 * An audit user name: what the client sends before the colon of HTTP Basic credentials, so no
 * colon (RFC 7617 §2), no control characters, no surrounding spaces. `DOMAIN\user` and
 * `user@example.com` are fine. Names are unique without regard to case.
 */
export const auditUserNameSchema = z
  .string()
  .min(1, 'must not be empty')
  .max(128)
  .refine((name) => !name.includes(':'), 'must not contain ":"')
  .refine((name) => !/[\p{Cc}]/u.test(name), 'must not contain control characters')
  .refine((name) => name.trim() === name, 'must not start or end with a space');

export const auditUserSchema = z.strictObject({
  name: auditUserNameSchema,
  roles: z
    .array(z.enum(AUDIT_ROLES))
    .min(1, 'needs at least one role')
    .refine((roles) => new Set(roles).size === roles.length, 'lists a role twice'),
  passwordHash: passwordHashSchema,
  createdAt: z.iso.datetime(),
  passwordChangedAt: z.iso.datetime(),
});

export const auditUsersSchema = z
  .array(auditUserSchema)
  .max(1000)
  .superRefine((users, ctx) => {
    const seen = new Set<string>();
    users.forEach((user, index) => {
      const key = user.name.toLowerCase();
      if (seen.has(key))
        ctx.addIssue({ code: 'custom', path: [index, 'name'], message: `"${user.name}" exists twice` });
      seen.add(key);
    });
  });
