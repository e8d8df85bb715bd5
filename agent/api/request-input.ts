/**
 * Request bodies and input checks of the agent API's resource routes. Bodies are read with a
 * byte limit while they stream (413 past it); JSON bodies are read and checked by
 * agent/http/json-body.ts, as the console's are (docs/security.md); a PATCH body is a JSON Merge Patch (RFC 7396,
 * `application/merge-patch+json`; `application/json` is accepted too). Validation failures
 * become 400 `invalid_request` naming the field; service failures (ServiceError) become
 * 400 / 404 / 409 with the field in the API's names.
 */
import type Koa from 'koa';
import type { JsonObject } from '../../shared/merge-patch.js';
import { JSON_BODY_LIMIT, checkCharset, mediaType, parseJsonObject, readJsonObject } from '../http/json-body.js';
import { readBodyText } from '../http/read-body.js';
import { ServiceError } from '../util/service-error.js';
import { ApiError, invalidInput } from '../http/api-error.js';

export { JSON_BODY_LIMIT, parseJsonObject };
export { parseInput } from '../http/parse-input.js';

/** A POST body: `application/json` (agent/http/json-body.ts). */
export const readJsonBody = readJsonObject;

/** A PATCH body: a JSON Merge Patch document (RFC 7396 §4). */
export async function readMergePatch(ctx: Koa.Context, limit = JSON_BODY_LIMIT): Promise<JsonObject> {
  const type = mediaType(ctx);
  if (type !== 'application/merge-patch+json' && type !== 'application/json') {
    // RFC 5789 §2.2: name the patch formats this resource takes.
    throw new ApiError(
      415,
      'unsupported_media_type',
      'send the changes as a JSON Merge Patch (application/merge-patch+json)',
      {
        headers: { 'Accept-Patch': 'application/merge-patch+json' },
      },
    );
  }
  checkCharset(ctx);
  return parseJsonObject(await readBodyText(ctx, limit));
}

/** A policy POST: the JSON resource, or the raw policy document as `application/xml` (or `text/xml`). */
export async function readJsonOrXml(ctx: Koa.Context, limit: number): Promise<{ json: JsonObject } | { xml: string }> {
  const type = mediaType(ctx);
  if (type === 'application/xml' || type === 'text/xml') {
    checkCharset(ctx);
    return { xml: await readBodyText(ctx, limit) };
  }
  if (type !== 'application/json') {
    throw new ApiError(
      415,
      'unsupported_media_type',
      'send the policy as application/json, or its XML as application/xml',
    );
  }
  checkCharset(ctx);
  return { json: parseJsonObject(await readBodyText(ctx, limit)) };
}

/** A write may not set fields the agent keeps (id, url, status...): 400 naming the first one. */
export function rejectReadOnly(body: JsonObject, readOnly: readonly string[]): void {
  for (const key of Object.keys(body)) {
    if (readOnly.includes(key)) throw invalidInput(key, `${key}: the field is read-only`);
  }
}

/** Runs a service call; its ServiceError becomes the API's error, the field renamed to the API's name. */
export async function viaService<T>(run: () => Promise<T>, rename: (field: string) => string = (f) => f): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (!(error instanceof ServiceError)) throw error;
    const field = error.field === undefined ? undefined : rename(error.field);
    const options = field ? { field } : {};
    const description = field && error.kind === 'invalid' ? `${field}: ${error.message}` : error.message;
    if (error.kind === 'not_found') throw new ApiError(404, 'not_found', error.message);
    if (error.kind === 'conflict') {
      throw new ApiError(409, 'conflict', error.message, {
        ...options,
        ...(error.holderId !== undefined ? { holderId: error.holderId } : {}),
      });
    }
    throw new ApiError(400, 'invalid_request', description, options);
  }
}

/** `true` / `false` query parameters (case-insensitive); anything else is a 400 naming it. */
export function booleanQuery(ctx: Koa.Context, name: string, fallback: boolean): boolean {
  const raw = ctx.query[name];
  if (raw === undefined) return fallback;
  if (Array.isArray(raw)) throw invalidInput(name, `${name}: give the parameter once`);
  if (/^true$/i.test(raw)) return true;
  if (/^false$/i.test(raw)) return false;
  throw invalidInput(name, `${name}: must be true or false`);
}
