/**
 * The console's tamper evidence page (shared/console-api.ts `ConsoleVerificationPaths`,
 * docs/integrity.md): the last verification, "Verify now", and the public key to keep elsewhere.
 */
import { ConsoleVerificationPaths, type VerificationState } from '../../shared/console-api.js';
import type { LogVerificationService } from '../integrity/log-verification-service.js';
import type { ConsoleRoutes } from './console-app.js';

export interface VerificationRouterDeps {
  service: LogVerificationService;
  publicKey: string;
  fingerprint: string;
  log: { error(message: string, fields?: Record<string, unknown>): void };
}

export function buildVerificationRouter(deps: VerificationRouterDeps): ConsoleRoutes {
  let failure: string | null = null;
  const state = (): VerificationState => ({
    last: deps.service.last(),
    running: deps.service.isRunning,
    failure,
    publicKey: deps.publicKey,
    fingerprint: deps.fingerprint,
  });
  return (router) => {
    router.get(ConsoleVerificationPaths.verification, (ctx) => {
      ctx.body = state();
    });
    router.post(ConsoleVerificationPaths.verification, (ctx) => {
      if (!deps.service.isRunning) {
        failure = null;
        deps.service.run().catch((error: Error) => {
          failure = error.message;
          deps.log.error('verification could not run', { error: error.message });
        });
      }
      ctx.status = 202;
      ctx.body = state();
    });
  };
}
