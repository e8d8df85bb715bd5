/**
 * First middleware after the host check: every console API failure leaves as
 * `{"error","error_description","field"?}` (shared/console-api.ts), never a stack trace.
 */
import type Koa from 'koa';
import { ApiError } from '../api/api-error.js';
import { ClientApplicationError } from '../auth/client-errors.js';
import { SettingsValidationError } from '../config/settings-store.js';
import type { Logger } from '../log/logger.js';

function toApiError(error: unknown): ApiError | null {
  if (error instanceof ApiError) return error;
  if (error instanceof ClientApplicationError) {
    const field = error.field === undefined ? {} : { field: error.field };
    if (error.kind === 'not_found') return new ApiError(404, 'not_found', error.message, field);
    if (error.kind === 'name_taken') return new ApiError(409, 'conflict', error.message, field);
    return new ApiError(400, 'invalid_request', error.message, field);
  }
  if (error instanceof SettingsValidationError) {
    return new ApiError(400, 'invalid_request', error.message, { field: error.field });
  }
  const status = (error as { status?: number })?.status;
  if (status === 413) return new ApiError(413, 'payload_too_large', 'request body is too large');
  if (status === 501) return new ApiError(501, 'not_implemented', 'method not implemented');
  return null;
}

export function consoleErrorMiddleware(log: Logger): Koa.Middleware {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.body === undefined || ctx.body === null) {
        if (ctx.status === 404 && ctx.path.startsWith('/api/')) {
          throw new ApiError(404, 'not_found', 'no such console endpoint');
        }
        if (ctx.status === 405) {
          throw new ApiError(405, 'method_not_allowed', 'method not allowed', {
            headers: { Allow: String(ctx.response.get('Allow')) },
          });
        }
      }
    } catch (caught) {
      let error = toApiError(caught);
      if (!error) {
        log.error('console request failed', { method: ctx.method, path: ctx.path, error: (caught as Error)?.stack });
        error = new ApiError(500, 'server_error', 'the console request failed');
      }
      ctx.status = error.status;
      ctx.set(error.options.headers ?? {});
      ctx.body = error.body;
    }
  };
}
