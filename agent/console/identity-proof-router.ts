/**
 * `GET /api/identity-proof?challenge=…`: the console proves it holds the console token without
 * the caller sending it (console-token.ts, consoleIdentityProof). It needs no credential, since
 * the caller checks it before trusting the console with one, so it is mounted before the API
 * guard. The answer reveals nothing about the token.
 */
import Router from '@koa/router';
import { ConsolePaths } from '../../shared/console-api.js';
import { ApiError } from '../api/api-error.js';
import { CONSOLE_CHALLENGE, type ConsoleToken } from './console-token.js';

export function buildIdentityProofRouter(token: ConsoleToken, port: () => number): Router {
  const router = new Router();
  router.get(ConsolePaths.identityProof, (ctx) => {
    const challenge = ctx.query['challenge'];
    if (typeof challenge !== 'string' || !CONSOLE_CHALLENGE.test(challenge)) {
      throw new ApiError(400, 'invalid_request', 'challenge must be 32 to 128 base64url characters', {
        field: 'challenge',
      });
    }
    ctx.body = { proof: token.prove(challenge, port()) };
  });
  return router;
}
