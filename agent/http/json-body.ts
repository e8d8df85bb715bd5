/**
 * JSON request bodies, for the agent API and the console alike (docs/security.md): read
 * with a byte limit while they stream (413 past it, http/read-body.ts); UTF-8 only (415 for
 * another charset); an object at the top (RFC 8259), at most 32 levels deep; no `__proto__`
 * key at any depth. JSON.parse makes such a key an ordinary member, but any code that copies
 * the body by assignment (`copy[key] = value`) would set the copy's prototype instead.
 */
import type Koa from 'koa';
import { isJsonObject, type JsonObject } from '../../shared/merge-patch.js';
import { ApiError, invalidInput } from './api-error.js';
import { fieldPath } from '../util/validation-errors.js';
import { readBodyText } from './read-body.js';

export const JSON_BODY_LIMIT = 64 * 1024;
export const MAX_JSON_DEPTH = 32;
const PROTOTYPE_KEY = '__proto__';

/** The request's media type without parameters, lower-cased (`application/json`). */
export function mediaType(ctx: Koa.Context): string {
  return (ctx.get('content-type').split(';')[0] ?? '').trim().toLowerCase();
}

/** 415 unless the body is UTF-8 (the default of JSON, RFC 8259 §8.1). */
export function checkCharset(ctx: Koa.Context): void {
  const charset = ctx.request.charset;
  if (charset && charset.toLowerCase() !== 'utf-8' && charset.toLowerCase() !== 'utf8') {
    throw new ApiError(415, 'unsupported_media_type', `the body must be UTF-8, not ${charset}`);
  }
}

/** One walk of the value: too deep → 400; a `__proto__` key → 400 naming where it is. */
function checkShape(value: JsonObject): void {
  const stack: Array<{ value: unknown; depth: number; path: PropertyKey[] }> = [{ value, depth: 1, path: [] }];
  while (stack.length > 0) {
    const { value: v, depth, path } = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (depth > MAX_JSON_DEPTH) {
      throw new ApiError(400, 'invalid_request', `the body is nested deeper than ${MAX_JSON_DEPTH} levels`);
    }
    if (Array.isArray(v)) {
      v.forEach((child, index) => stack.push({ value: child, depth: depth + 1, path: [...path, index] }));
      continue;
    }
    for (const [key, child] of Object.entries(v)) {
      if (key === PROTOTYPE_KEY) {
        const field = fieldPath([...path, key]);
        throw invalidInput(field, `${field}: "${PROTOTYPE_KEY}" is not accepted as a key`);
      }
      stack.push({ value: child, depth: depth + 1, path: [...path, key] });
    }
  }
}

/** Parses JSON text that must be an object, with the checks above. */
export function parseJsonObject(text: string): JsonObject {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ApiError(400, 'invalid_request', `the body is not valid JSON: ${(error as Error).message}`);
  }
  if (!isJsonObject(value)) throw new ApiError(400, 'invalid_request', 'the body must be a JSON object');
  checkShape(value);
  return value;
}

/**
 * An `application/json` body that is a JSON object. A cross-site form cannot send that type
 * without a CORS preflight, which neither listener grants.
 */
export async function readJsonObject(ctx: Koa.Context, limit = JSON_BODY_LIMIT): Promise<JsonObject> {
  if (mediaType(ctx) !== 'application/json') {
    throw new ApiError(415, 'unsupported_media_type', 'send the body as application/json');
  }
  checkCharset(ctx);
  return parseJsonObject(await readBodyText(ctx, limit));
}
