/**
 * `POST /api/v1/token` (docs/authentication.md): the client credentials grant (RFC 6749 §4.4)
 * and the refresh grant (RFC 6749 §6), with client authentication by body parameters or HTTP Basic
 * (RFC 6749 §2.3.1), never both (RFC 6749 §2.3). Errors are exactly RFC 6749 §5.2's; every answer, success or
 * not, carries `Cache-Control: no-store` and `Pragma: no-cache` (RFC 6749 §5.1).
 *
 * Order of checks: the request's form (content type, encoding, repeated or missing
 * parameters) → the grant type → the client → the grant. Nothing here logs a secret or token.
 */
import type Koa from 'koa';
import { ApiError } from '../http/api-error.js';
import type { AgentApiRouter } from './openapi/route-doc.js';
import { readBodyText } from '../http/read-body.js';
import type { Logger } from '../log/logger.js';
import { parseBasicCredentials } from '../auth/basic-credentials.js';
import { AUTH_REALM, rfcText } from '../auth/challenge.js';
import type { ClientService } from '../auth/client-service.js';
import { parseFormParameters } from '../auth/form-parameters.js';
import type { TokenService } from '../auth/token-service.js';
import { TokenRateLimiter } from '../auth/token-rate-limit.js';
import { tokenRequestSchema, tokenResponseSchema } from './schemas/token-schemas.js';

export const TOKEN_PATH = '/api/v1/token';
const FORM_LIMIT_BYTES = 16 * 1024;
const SUPPORTED_GRANTS = new Set(['client_credentials', 'refresh_token']);
/** RFC 6749 §2.3.1: credentials "MUST NOT be included in the request URI". */
const URI_FORBIDDEN = ['client_id', 'client_secret', 'grant_type', 'refresh_token'];

export interface TokenRouterDeps {
  clients: ClientService;
  tokens: TokenService;
  log: Logger;
  /** Tokens per client and minute (token-rate-limit.ts); one is made when not given. */
  rateLimit?: TokenRateLimiter;
}

/** 429 in the RFC 6749 §5.2 body shape; `slow_down` is the registered code for it (RFC 8628 §3.5). */
function slowDown(seconds: number): ApiError {
  return new ApiError(429, 'slow_down', `too many token requests for this client; try again in ${seconds} seconds`, {
    headers: { 'Retry-After': String(seconds) },
  });
}

function invalidRequest(description: string, field?: string): ApiError {
  return new ApiError(400, 'invalid_request', rfcText(description), field === undefined ? {} : { field });
}

/** RFC 6749 §5.2: 401 with a challenge for the scheme the client used (Basic is the only one). */
function invalidClient(description: string): ApiError {
  return new ApiError(401, 'invalid_client', rfcText(description), {
    headers: { 'WWW-Authenticate': `Basic realm="${AUTH_REALM}", charset="UTF-8"` },
  });
}

function invalidGrant(description: string): ApiError {
  return new ApiError(400, 'invalid_grant', description, { field: 'refresh_token' });
}

const AUTH_FAILED = 'client authentication failed: unknown client_id or wrong client_secret';

interface PresentedClient {
  clientId: string | undefined;
  secret: string | undefined;
  method: 'basic' | 'body' | 'none';
}

function presentedClient(ctx: Koa.Context, params: ReadonlyMap<string, string>): PresentedClient {
  const header = ctx.get('authorization');
  const bodyId = params.get('client_id');
  const bodySecret = params.get('client_secret');
  if (header === '') return { clientId: bodyId, secret: bodySecret, method: bodyId ? 'body' : 'none' };
  if (!/^basic(\s|$)/i.test(header)) {
    throw invalidClient('unsupported client authentication scheme: use HTTP Basic or the body parameters');
  }
  const basic = parseBasicCredentials(header);
  if (!basic.ok) throw invalidClient(basic.problem);
  // RFC 6749 §2.3: "The client MUST NOT use more than one authentication method in each request."
  if (bodySecret !== undefined) {
    throw invalidRequest(
      'client credentials were sent both in the Authorization header and in the body',
      'client_secret',
    );
  }
  if (bodyId !== undefined && bodyId !== basic.clientId) {
    throw invalidRequest('client_id in the body differs from the one in the Authorization header', 'client_id');
  }
  return { clientId: basic.clientId, secret: basic.secret === '' ? undefined : basic.secret, method: 'basic' };
}

/** Registers `POST /api/v1/token`; other methods get 405 with `Allow: POST` from the router. */
export function registerTokenRoute(router: AgentApiRouter, deps: TokenRouterDeps): void {
  const { clients, tokens, log } = deps;
  const rateLimit = deps.rateLimit ?? new TokenRateLimiter();
  const checkRate = (clientId: string): void => {
    const wait = rateLimit.retryAfter(clientId);
    if (wait > 0) {
      log.info('token request refused', { clientId, reason: 'rate_limited' });
      throw slowDown(wait);
    }
  };

  /** Authenticates with the secret; returns the client id or throws invalid_client. */
  const authenticate = (clientId: string, secret: string): string => {
    const result = clients.authenticate(clientId, secret);
    if (result.ok) return result.client.id;
    log.info('token request refused', { clientId, reason: result.reason });
    if (result.reason === 'secret_expired') {
      throw invalidClient(
        `the client secret expired at ${result.client?.secretExpiresAt ?? 'an earlier time'}; ` +
          'generate a new one in the console or with: vigil client regenerate-secret',
      );
    }
    throw invalidClient(AUTH_FAILED);
  };

  router.post(
    TOKEN_PATH,
    {
      access: 'none',
      tag: 'Authentication',
      summary: 'Obtain an access token (client_credentials) or a new pair (refresh_token)',
      body: { 'application/x-www-form-urlencoded': tokenRequestSchema },
      ok: { status: 200, description: 'Tokens (Cache-Control: no-store)', schema: tokenResponseSchema },
      errors: [400, 401, 413],
    },
    async (ctx) => {
      // Set before anything can fail: the error middleware keeps headers already set (RFC 6749 §5.1).
      ctx.set('Cache-Control', 'no-store');
      ctx.set('Pragma', 'no-cache');
      for (const name of URI_FORBIDDEN) {
        if (ctx.URL.searchParams.has(name)) {
          throw invalidRequest(
            `${name} must be sent in the request body, never in the URL (RFC 6749 section 2.3.1)`,
            name,
          );
        }
      }
      // docs/authentication.md: existing clients' samples send a form body labelled JSON
      // (docs/authentication.md), so such a label is read as a form; a real JSON body is refused.
      const labelledJson = ctx.is('application/json') === 'application/json';
      if (!labelledJson && !ctx.is('application/x-www-form-urlencoded')) {
        throw invalidRequest('send the parameters as application/x-www-form-urlencoded (RFC 6749 section 4.4.2)');
      }
      const charset = ctx.request.charset;
      if (charset && charset.toLowerCase() !== 'utf-8') throw invalidRequest('the form body must be UTF-8');
      const text = await readBodyText(ctx, FORM_LIMIT_BYTES);
      if (labelledJson && /^\s*[{[]/.test(text)) {
        throw invalidRequest(
          'a JSON body is not accepted: send the parameters as application/x-www-form-urlencoded (RFC 6749 section 4.4.2)',
        );
      }
      const parsed = parseFormParameters(text);
      if (!parsed.ok) throw invalidRequest(parsed.problem, parsed.field);
      const params = parsed.params;

      const grantType = params.get('grant_type');
      if (grantType === undefined) throw invalidRequest('the grant_type parameter is missing', 'grant_type');
      if (!SUPPORTED_GRANTS.has(grantType)) {
        throw new ApiError(400, 'unsupported_grant_type', 'grant_type must be client_credentials or refresh_token', {
          field: 'grant_type',
        });
      }
      if (params.has('scope')) {
        throw new ApiError(400, 'invalid_scope', 'scope is not used: permissions are set on the client application', {
          field: 'scope',
        });
      }
      const client = presentedClient(ctx, params);
      if (client.clientId === undefined)
        throw invalidClient('no client authentication: send client_id and client_secret');

      let clientId: string;
      let issued;
      if (grantType === 'client_credentials') {
        if (client.secret === undefined) throw invalidClient('client_secret is missing');
        clientId = authenticate(client.clientId, client.secret);
        checkRate(clientId);
        rateLimit.count(clientId);
        issued = await tokens.issue(clientId);
      } else {
        const refreshToken = params.get('refresh_token');
        if (refreshToken === undefined) throw invalidRequest('the refresh_token parameter is missing', 'refresh_token');
        // docs/authentication.md: the refresh token is the long-lived credential; a secret, if sent, must be valid.
        if (client.secret !== undefined) clientId = authenticate(client.clientId, client.secret);
        else if (clients.find(client.clientId)) clientId = client.clientId;
        else {
          log.info('token request refused', { clientId: client.clientId, reason: 'unknown_client' });
          throw invalidClient(AUTH_FAILED);
        }
        checkRate(clientId);
        const result = await tokens.refresh(clientId, refreshToken);
        if (result.ok) rateLimit.count(clientId);
        if (!result.ok) {
          log.warn('refresh refused', { clientId, reason: result.reason });
          if (result.reason === 'reused') {
            throw invalidGrant(
              'the refresh token was already used; every token issued from it is now revoked (RFC 9700 section 4.14.2)',
            );
          }
          throw invalidGrant('the refresh token is invalid, revoked, or was issued to another client');
        }
        issued = result.tokens;
      }
      log.debug('token issued', { clientId, grantType });
      ctx.status = 200;
      ctx.body = {
        access_token: issued.accessToken,
        token_type: 'bearer',
        expires_in: issued.expiresIn,
        refresh_token: issued.refreshToken,
      };
    },
  );
}
