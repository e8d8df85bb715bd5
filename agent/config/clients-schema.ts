/**
 * Client applications of the agent API (docs/authentication.md): the `clients` section of settings.json.
 */
import { z } from 'zod';
import { PERMISSIONS } from '../../shared/permissions.js';
import { CLIENT_NAME_MAX, clientNameProblem } from '../../shared/client-application.js';

const isoTimeSchema = z.iso.datetime({ offset: false });

/**
 * A client application of the agent API (docs/authentication.md). The secret itself is never stored:
 * only HMAC-SHA256(pepper, secret) in hex, the pepper living in `secrets/` (agent/auth/pepper.ts).
 */
export const clientApplicationSchema = z.strictObject({
  id: z.string().regex(/^[0-9a-f]{32}$/, '32 lower-case hex digits'),
  name: z
    .string()
    .max(CLIENT_NAME_MAX)
    .superRefine((value, ctx) => {
      const problem = clientNameProblem(value);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    }),
  permissions: z
    .array(z.enum(PERMISSIONS))
    .max(PERMISSIONS.length)
    .refine((list) => new Set(list).size === list.length, 'a permission is listed twice'),
  secretHash: z.string().regex(/^[0-9a-f]{64}$/, 'an HMAC-SHA256 in hex'),
  secretExpiresAt: isoTimeSchema,
  createdAt: isoTimeSchema,
});

export const clientsSchema = z
  .array(clientApplicationSchema)
  .max(1000)
  .superRefine((clients, ctx) => {
    const ids = new Set<string>();
    const names = new Set<string>();
    clients.forEach((client, index) => {
      if (ids.has(client.id)) ctx.addIssue({ code: 'custom', path: [index, 'id'], message: 'duplicate client id' });
      const key = client.name.toLowerCase();
      if (names.has(key)) ctx.addIssue({ code: 'custom', path: [index, 'name'], message: 'duplicate client name' });
      ids.add(client.id);
      names.add(key);
    });
  });
