/**
 * Request bodies and input checks of the agent API's resource routes. Bodies are read with a
 * byte limit while they stream (413 past it); JSON must be UTF-8 and an object, at most 32
 * levels deep (security.md §3.4); a PATCH body is a JSON Merge Patch (RFC 7396,
 * `application/merge-patch+json`; `application/json` is accepted too). Validation failures
 * become 400 `invalid_request` naming the field; service failures (ServiceError) become
 * 400 / 404 / 409 with the field in the API's names.
 */
import type Koa from 'koa';
import type { z } from 'zod';
import { isJsonObject, type JsonObject } from '../../shared/merge-patch.js';
import { fieldProblems } from '../config/validation-errors.js';
import { readBodyText } from '../http/read-body.js';
import { ServiceError } from '../util/service-error.js';
import { ApiError, invalidInput } from './api-error.js';

export const JSON_BODY_LIMIT = 64 * 1024;
const MAX_DEPTH = 32;

function mediaType(ctx: Koa.Context): string {
  return (ctx.get('content-type').split(';')[0] ?? '').trim().toLowerCase();
}

function checkCharset(ctx: Koa.Context): void {
  const charset = ctx.request.charset;
  if (charset && charset.toLowerCase() !== 'utf-8' && charset.toLowerCase() !== 'utf8') {
    throw new ApiError(415, 'unsupported_media_type', `the body must be UTF-8, not ${charset}`);
  }
}

function depthOf(value: unknown): number {
  let max = 0;
  const stack: Array<{ value: unknown; depth: number }> = [{ value, depth: 1 }];
  while (stack.length > 0) {
    const { value: v, depth } = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (depth > max) max = depth;
    if (max > MAX_DEPTH) return max;
    for (const child of Object.values(v)) stack.push({ value: child, depth: depth + 1 });
  }
  return max;
}

/** Parses JSON text that must be an object (RFC 8259), refusing deep nesting. */
export function parseJsonObject(text: string): JsonObject {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ApiError(400, 'invalid_request', `the body is not valid JSON: ${(error as Error).message}`);
  }
  if (!isJsonObject(value)) throw new ApiError(400, 'invalid_request', 'the body must be a JSON object');
  if (depthOf(value) > MAX_DEPTH) {
    throw new ApiError(400, 'invalid_request', `the body is nested deeper than ${MAX_DEPTH} levels`);
  }
  return value;
}

/** A POST body: `application/json`. */
export async function readJsonBody(ctx: Koa.Context, limit = JSON_BODY_LIMIT): Promise<JsonObject> {
  if (mediaType(ctx) !== 'application/json') {
    throw new ApiError(415, 'unsupported_media_type', 'send the body as application/json');
  }
  checkCharset(ctx);
  return parseJsonObject(await readBodyText(ctx, limit));
}

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

/** Validates `value`; the first problem becomes a 400 naming its field (`prefix` before it). */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, prefix = ''): z.infer<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const problem = fieldProblems(result.error)[0] ?? { field: '', message: 'invalid input' };
  const field =
    prefix === ''
      ? problem.field
      : problem.field === ''
        ? prefix
        : `${prefix}${problem.field.startsWith('[') ? '' : '.'}${problem.field}`;
  const description = field === '' ? problem.message : `${field}: ${problem.message}`;
  throw invalidInput(field, description);
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
