/**
 * Reads a request body as UTF-8 text with a byte limit, stopping as soon as the limit is passed
 * (a huge body is refused while it streams, not after it was buffered). The rest of an
 * oversized body is drained, not read, so the client still gets its 413.
 */
import type Koa from 'koa';

export class BodyTooLargeError extends Error {
  readonly status = 413;
  readonly expose = true;
  constructor(readonly limit: number) {
    super(`the request body is larger than ${limit} bytes`);
    this.name = 'BodyTooLargeError';
  }
}

export function readBodyText(ctx: Koa.Context, limit: number): Promise<string> {
  const req = ctx.req;
  const declared = Number(ctx.get('content-length'));
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
      resolve(Buffer.concat(chunks).toString('utf8'));
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
