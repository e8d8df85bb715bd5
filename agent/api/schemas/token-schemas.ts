/** The token endpoint (docs/authentication.md, RFC 6749 §4.4, RFC 6749 §6), for the OpenAPI description; agent/auth/ implements it. */
import { z } from 'zod';

export const tokenRequestSchema = z
  .object({
    grant_type: z.enum(['client_credentials', 'refresh_token']),
    client_id: z.string().optional().meta({ description: 'Or HTTP Basic (RFC 6749 §2.3.1), not both.' }),
    client_secret: z.string().optional().meta({ description: 'client_credentials: required (or HTTP Basic).' }),
    refresh_token: z.string().optional().meta({ description: 'refresh_token: required.' }),
  })
  .meta({ id: 'TokenRequest' });

export const tokenResponseSchema = z
  .object({
    access_token: z.string(),
    token_type: z.literal('bearer'),
    expires_in: z.number().int().meta({ description: '604800 (7 days)' }),
    refresh_token: z.string().meta({ description: 'Never expires; rotates on every use.' }),
  })
  .meta({ id: 'TokenResponse' });

export const tokenErrorSchema = z
  .object({
    error: z.enum(['invalid_request', 'invalid_client', 'invalid_grant', 'unsupported_grant_type', 'invalid_scope']),
    error_description: z.string(),
    field: z.string().optional(),
  })
  .meta({ id: 'TokenError' });
