/**
 * First middleware after the host check: every console API failure leaves as
 * `{"error","error_description","field"?}` (shared/console-api.ts), never a stack trace.
 */
import type Koa from 'koa';
import { ApiError } from '../http/api-error.js';
import { SettingsValidationError } from '../config/settings-store.js';
import type { Logger } from '../log/logger.js';
import { LogFileMissingError, LogViewRequestError } from '../outputs/log-file-viewer.js';
import { AuditError } from '../audit/audit-errors.js';
import { AuditDatabaseError, PageCancelled } from '../store/audit-reader.js';
import { ServiceError } from '../util/service-error.js';
import { isApiPath } from './console-guard.js';

function toApiError(error: unknown): ApiError | null {
  if (error instanceof ApiError) return error;
  if (error instanceof SettingsValidationError) {
    const first = error.problems[0];
    if (first?.holderId !== undefined) {
      return new ApiError(409, 'conflict', first.message, { field: error.field, holderId: first.holderId });
    }
    return new ApiError(400, 'invalid_request', first?.message ?? error.message, { field: error.field });
  }
  if (error instanceof ServiceError) {
    const field = error.field === undefined ? {} : { field: error.field };
    if (error.kind === 'not_found') return new ApiError(404, 'not_found', error.message, field);
    if (error.kind === 'conflict') {
      const holder = error.holderId === undefined ? {} : { holderId: error.holderId };
      return new ApiError(409, 'conflict', error.message, { ...field, ...holder });
    }
    return new ApiError(400, 'invalid_request', error.message, field);
  }
  if (error instanceof LogFileMissingError) return new ApiError(404, 'not_found', error.message);
  if (error instanceof LogViewRequestError) {
    return new ApiError(400, 'invalid_request', error.message, { field: error.field });
  }
  // Activity search runs on the audit API's service: its input errors are the console's too.
  if (error instanceof AuditError && error.status === 400) {
    return new ApiError(400, 'invalid_request', error.detail, { field: 'filterList' });
  }
  if (error instanceof AuditDatabaseError) {
    return new ApiError(503, 'audit_store_unavailable', `the audit database cannot be read: ${error.message}`);
  }
  if (error instanceof PageCancelled) return new ApiError(499, 'cancelled', 'the request was cancelled');
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
        if (ctx.status === 404 && isApiPath(ctx.path)) {
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
