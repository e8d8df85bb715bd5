/**
 * Bearer authentication for every agent API route but the token endpoint (RFC 6750 §2.1,
 * docs/authentication.md). The token is looked up on every request (no cache), and the client's
 * permissions are read from the current settings, so a revocation or a permission change
 * applies to the very next request without a new token.
 *
 * A missing, malformed, unknown, expired or revoked token → 401 with
 * `WWW-Authenticate: Bearer realm="vigil", error="invalid_token", error_description="…"` and
 * the JSON error body. Departure from RFC 6750 §3.1, which says a request without credentials
 * SHOULD NOT get an error code: docs/authentication.md asks for invalid_token in every case, and a client
 * gains nothing from telling "none" from "bad" (docs/authentication.md).
 */
import type Koa from 'koa';
import { AccessPolicy } from '../../shared/permission-engine.js';
import type { Permission } from '../../shared/permissions.js';
import { ApiError } from '../http/api-error.js';
import type { ClientService } from '../auth/client-service.js';
import { AUTH_REALM, rfcText } from '../auth/challenge.js';
import type { AccessTokenFailure, TokenService } from '../auth/token-service.js';

/** Who is calling, put on `ctx.state.auth` for handlers and `requirePermission`. */
export interface ApiAuth {
  clientId: string;
  clientName: string;
  permissions: readonly Permission[];
  /** The permission engine for this client's current permissions. */
  access: AccessPolicy;
  /** Actor for the self-audit of changes this request makes (docs/activity-pipeline.md). */
  actor: string;
}

export interface BearerAuthDeps {
  tokens: TokenService;
  clients: ClientService;
}

/** 401 with a Bearer challenge (RFC 6750 §3); `error` is `invalid_token` or `insufficient_permission`. */
export function bearerChallenge(code: string, description: string): ApiError {
  const text = rfcText(description);
  return new ApiError(401, code, text, {
    headers: { 'WWW-Authenticate': `Bearer realm="${AUTH_REALM}", error="${code}", error_description="${text}"` },
  });
}

const FAILURE_TEXT: Record<AccessTokenFailure | 'client_revoked', string> = {
  malformed: 'the access token is not valid',
  unknown: 'the access token is not valid',
  expired: 'the access token expired; obtain a new one with the refresh token',
  revoked: 'the access token was revoked',
  client_revoked: 'the client application of this access token was revoked',
};

/** RFC 6750 §2.1 b64token, after a case-insensitive scheme name (RFC 9110 §11.1). */
const BEARER = /^bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

export function bearerAuth(deps: BearerAuthDeps): Koa.Middleware {
  // Not async: it throws or hands over to `next`, and one promise less per request is measurable.
  return (ctx, next) => {
    // Node keeps header names in lower case; a missing header reads as '' like ctx.get() gives.
    const header = ctx.req.headers.authorization ?? '';
    // RFC 6750 §2.3 (URI query) is not supported: "SHOULD NOT be used". Two methods at once → 400 (RFC 6750 §3.1).
    // (`ctx.querystring` first: parsing a URL object on every request is measurable.)
    if (ctx.querystring !== '' && ctx.URL.searchParams.has('access_token')) {
      if (header !== '') {
        throw new ApiError(400, 'invalid_request', 'send the access token in one place only: the Authorization header');
      }
      throw bearerChallenge('invalid_token', 'send the access token in the Authorization header, not in the URL');
    }
    if (header === '') throw bearerChallenge('invalid_token', 'no access token: send Authorization: Bearer <token>');
    const match = BEARER.exec(header);
    if (!match) throw bearerChallenge('invalid_token', 'the Authorization header must be: Bearer <access token>');
    const check = deps.tokens.checkAccessToken(match[1]!);
    if (!check.ok) throw bearerChallenge('invalid_token', FAILURE_TEXT[check.reason]);
    const client = deps.clients.find(check.identity.clientId);
    if (!client) throw bearerChallenge('invalid_token', FAILURE_TEXT.client_revoked);
    const auth: ApiAuth = {
      clientId: client.id,
      clientName: client.name,
      permissions: client.permissions,
      access: new AccessPolicy(client.permissions),
      actor: `client:${client.name}`,
    };
    ctx.state['auth'] = auth;
    return next();
  };
}

/** The authenticated caller of this request; only valid behind `bearerAuth`. */
export function apiAuth(ctx: Koa.Context): ApiAuth {
  const auth = (ctx.state as Record<string, unknown>)['auth'] as ApiAuth | undefined;
  if (!auth) throw new Error('apiAuth() used on a route that is not behind bearerAuth');
  return auth;
}
