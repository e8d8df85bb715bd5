/**
 * Reads a request body up to a byte limit. A declared Content-Length over the limit is refused
 * before a byte is read; a body that streams past it is cut off at the limit. Either way the
 * answer is 413 with an empty body (docs/audit-api.md) and the connection is closed, since
 * the rest of the body is never read.
 */
import type http from 'node:http';
import { EmptyResponse } from './audit-errors.js';

const tooLarge = (): EmptyResponse => new EmptyResponse(413, { Connection: 'close' }, 'request body too large');

export async function readBody(req: http.IncomingMessage, limit: number): Promise<Buffer> {
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > limit) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw tooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}

const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/** UTF-8 text of a body, or null when the bytes are not UTF-8. A BOM is dropped. */
export function utf8Text(body: Buffer): string | null {
  try {
    return decoder.decode(body);
  } catch {
    return null;
  }
}
