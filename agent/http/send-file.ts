/**
 * Sends an open file as a download, for the agent API and the console: streamed from the
 * descriptor (never buffered whole; the open descriptor keeps serving the file even if it is
 * zipped and removed meanwhile), with one byte range (http/byte-range.ts: 206, 416; several
 * ranges get the whole file) and a strong validator for `If-Range`. The caller opens the file:
 * for log files that is LogFilesService.open, which refuses a symbolic link (O_NOFOLLOW) and
 * anything but a regular file.
 */
import type fs from 'node:fs';
import type Koa from 'koa';
import { ApiError } from './api-error.js';
import { decideRange, ifRangeMatches } from './byte-range.js';

export interface OpenFile {
  /** Closed by sendFile: at the end of the stream, or at once when nothing is streamed. */
  handle: fs.promises.FileHandle;
  /** The download's file name. */
  name: string;
  size: number;
  mtime: Date;
}

/** A strong validator from the file's size and modification time (RFC 9110 §8.8.3). */
function etagOf(file: OpenFile): string {
  return `"${file.size.toString(16)}-${Math.floor(file.mtime.getTime()).toString(16)}"`;
}

export async function sendFile(ctx: Koa.Context, file: OpenFile, type: string): Promise<void> {
  const etag = etagOf(file);
  const lastModified = file.mtime.toUTCString();
  // RFC 6266: a quoted ASCII name (log file names are ASCII already).
  ctx.set('Content-Disposition', `attachment; filename="${file.name.replace(/[^\x20-\x7e]|"/g, '_')}"`);
  ctx.set('Accept-Ranges', 'bytes');
  ctx.set('ETag', etag);
  ctx.set('Last-Modified', lastModified);
  ctx.set('Cache-Control', 'no-store');
  ctx.type = type;
  const range = ifRangeMatches(ctx.get('if-range') || undefined, etag, lastModified)
    ? decideRange(ctx.get('range') || undefined, file.size)
    : ({ kind: 'whole' } as const);
  if (range.kind === 'unsatisfiable') {
    await file.handle.close();
    throw new ApiError(416, 'range_not_satisfiable', `the file has ${file.size} bytes; no requested range is in it`, {
      headers: { 'Content-Range': `bytes */${file.size}` },
    });
  }
  const start = range.kind === 'partial' ? range.start : 0;
  const end = range.kind === 'partial' ? range.end : file.size - 1;
  if (range.kind === 'partial') {
    ctx.status = 206;
    ctx.set('Content-Range', `bytes ${start}-${end}/${file.size}`);
  }
  if (end < start) {
    await file.handle.close(); // an empty file
    ctx.body = '';
    return;
  }
  // Koa destroys the stream when the response ends (HEAD included) or the client goes away;
  // the stream then closes the descriptor.
  ctx.body = file.handle.createReadStream({ start, end, autoClose: true });
  ctx.length = end - start + 1;
}
