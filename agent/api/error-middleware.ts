/**
 * First middleware of the agent API (Koa's docs: the error shaper goes first). Every failure
 * leaves as the JSON body of api-error.ts: never an HTML page, never a stack trace.
 */
import type Koa from 'koa';
import { ApiError } from '../http/api-error.js';
import type { Logger } from '../log/logger.js';

interface HttpLikeError {
  status?: number;
  statusCode?: number;
  expose?: boolean;
  message?: string;
  type?: string;
  headers?: Record<string, string>;
}

/** Maps errors raised by Koa, the router and the body parser onto the API's codes. */
function fromHttpError(error: HttpLikeError): ApiError | null {
  const status = error.status ?? error.statusCode;
  // The router answers a method it does not know at all (TRACE, PROPFIND...) with 501.
  if (status === 501) return new ApiError(501, 'not_implemented', 'method not implemented');
  if (typeof status !== 'number' || status < 400 || status >= 500) return null;
  const headers = error.headers ?? {};
  switch (status) {
    case 405:
      return new ApiError(405, 'method_not_allowed', 'method not allowed on this resource', { headers });
    case 413:
      return new ApiError(413, 'payload_too_large', 'request body is too large');
    case 415:
      return new ApiError(415, 'unsupported_media_type', error.message ?? 'unsupported content type');
    case 404:
      return new ApiError(404, 'not_found', 'no such resource');
    default:
      return new ApiError(status, 'invalid_request', error.expose ? (error.message ?? 'bad request') : 'bad request');
  }
}

export function apiErrorMiddleware(log: Logger): Koa.Middleware {
  return async (ctx, next) => {
    ctx.set('X-Content-Type-Options', 'nosniff'); // here rather than in a middleware of its own: one less per request
    try {
      await next();
      if (ctx.body === undefined || ctx.body === null) {
        if (ctx.status === 404) throw new ApiError(404, 'not_found', 'no such resource');
        // The router's allowedMethods (throw: false) sets 405 + Allow (RFC 9110 §15.5.6) or 501.
        if (ctx.status === 405) {
          throw new ApiError(405, 'method_not_allowed', 'method not allowed on this resource', {
            headers: { Allow: String(ctx.response.get('Allow')) },
          });
        }
        if (ctx.status === 501) throw new ApiError(501, 'not_implemented', 'method not implemented');
      }
    } catch (caught) {
      let error = caught instanceof ApiError ? caught : fromHttpError(caught as HttpLikeError);
      if (!error) {
        log.error('request failed', {
          method: ctx.method,
          path: ctx.path,
          error: (caught as Error)?.stack ?? String(caught),
        });
        error = new ApiError(500, 'server_error', 'the agent could not complete the request');
      }
      ctx.status = error.status;
      ctx.set(error.options.headers ?? {});
      ctx.body = error.body;
    }
  };
}
