/**
 * Settings key `fleet`: this agent is a member of a fleet whose records live in one PostgreSQL
 * database (docs/fleet.md). Absent when the agent keeps its records to itself. The password is
 * never here: it lives in secrets/fleet-password (or PGPASSWORD, or ~/.pgpass).
 */
import { z } from 'zod';

/** `postgres://user@host:port/db[?sslmode=…]`, without a password. */
export const fleetDatabaseUrlSchema = z
  .string()
  .max(2000)
  .superRefine((value, ctx) => {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      ctx.addIssue({ code: 'custom', message: 'must be a URL like postgres://user@host:5432/database' });
      return;
    }
    if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
      ctx.addIssue({ code: 'custom', message: 'must start with postgres:// or postgresql://' });
    } else if (url.password !== '') {
      ctx.addIssue({ code: 'custom', message: 'must not contain the password (give it with --password-stdin)' });
    } else if (url.username === '' || url.hostname === '' || url.pathname.length < 2) {
      ctx.addIssue({ code: 'custom', message: 'must name the user, the host and the database' });
    }
  });

export const fleetMembershipSchema = z.strictObject({
  database: fleetDatabaseUrlSchema,
  joinedAt: z.iso.datetime({ offset: false }),
});
export type FleetMembershipSettings = z.infer<typeof fleetMembershipSchema>;
