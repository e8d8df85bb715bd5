/**
 * `GET /api/identity-proof?challenge=…`: the console proves it holds the console token without
 * the caller sending it (console-token.ts, consoleIdentityProof). It needs no credential, since
 * the caller checks it before trusting the console with one, so it answers before the API
 * guard, and only to its one exact spelling (any other spelling reaches the guard). The answer
 * reveals nothing about the token.
 */
import type Koa from 'koa';
import { ConsolePaths } from '../../shared/console-api.js';
import { ApiError } from '../http/api-error.js';
import { CONSOLE_CHALLENGE, type ConsoleToken } from './console-token.js';

export function identityProof(token: ConsoleToken, port: () => number): Koa.Middleware {
  return async (ctx, next) => {
    if (ctx.path !== ConsolePaths.identityProof || ctx.method !== 'GET') return next();
    const challenge = ctx.query['challenge'];
    if (typeof challenge !== 'string' || !CONSOLE_CHALLENGE.test(challenge)) {
      throw new ApiError(400, 'invalid_request', 'challenge must be 32 to 128 base64url characters', {
        field: 'challenge',
      });
    }
    ctx.body = { proof: token.prove(challenge, port()) };
  };
}
