/**
 * The one request body reader of the agent's listeners (agent API, audit API, console): bytes
 * up to a limit, stopping as soon as the limit is passed (a huge body is refused while it
 * streams, not after it was buffered). A declared Content-Length over the limit is refused
 * before a byte is read. The rest of an oversized body is drained, not read, so the client
 * still gets its 413; each API shapes that 413 its own way (docs/audit-api.md, docs/agent-api.md).
 */
import type http from 'node:http';
import type Koa from 'koa';

export class BodyTooLargeError extends Error {
  readonly status = 413;
  readonly expose = true;
  constructor(readonly limit: number) {
    super(`the request body is larger than ${limit} bytes`);
    this.name = 'BodyTooLargeError';
  }
}

export function readBody(req: http.IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    req.resume();
    return Promise.reject(new BodyTooLargeError(limit));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = (): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit) {
        cleanup();
        req.resume();
        reject(new BodyTooLargeError(limit));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      cleanup();
      resolve(Buffer.concat(chunks, size));
    };
    const onError = (error: Error): void => {
      cleanup();
      reject(error);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}

/** The body as UTF-8 text (malformed sequences become U+FFFD; the JSON reader checks what it needs). */
export async function readBodyText(ctx: Koa.Context, limit: number): Promise<string> {
  return (await readBody(ctx.req, limit)).toString('utf8');
}

const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/** UTF-8 text of a body, or null when the bytes are not UTF-8. A BOM is dropped. */
export function utf8Text(body: Uint8Array): string | null {
  try {
    return decoder.decode(body);
  } catch {
    return null;
  }
}
