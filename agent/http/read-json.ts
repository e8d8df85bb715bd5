/**
 * Reads a JSON request body: `application/json` only (a cross-site form cannot send it without
 * a CORS preflight, which the console never grants), 64 KiB at most, an object at the top.
 */
import type Koa from 'koa';
import { ApiError } from '../api/api-error.js';
import { readBodyText } from './read-body.js';

const JSON_LIMIT_BYTES = 64 * 1024;

export async function readJsonObject(ctx: Koa.Context): Promise<Record<string, unknown>> {
  if (!ctx.is('application/json')) {
    throw new ApiError(415, 'unsupported_media_type', 'send the body as application/json');
  }
  const text = await readBodyText(ctx, JSON_LIMIT_BYTES);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ApiError(400, 'invalid_request', `the body is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ApiError(400, 'invalid_request', 'the body must be a JSON object');
  }
  return value as Record<string, unknown>;
}
