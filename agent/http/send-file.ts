/**
 * Streams a file as a download, never buffering it whole, with single-range HTTP Range support
 * (RFC 9110 §14): `bytes=a-b`, `bytes=a-`, `bytes=-n` → 206 with Content-Range; a range that
 * starts past the end → 416 with a Content-Range naming the size. Several ranges in one header
 * are answered with the whole file (a server may ignore Range, §14.2).
 */
import fs from 'node:fs';
import type Koa from 'koa';

export interface ByteRange {
  start: number;
  end: number;
}

/** The requested range, 'unsatisfiable', or null to send the whole file. */
export function parseRange(header: string | undefined, size: number): ByteRange | 'unsatisfiable' | null {
  if (!header) return null;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || (match[1] === '' && match[2] === '')) return null;
  if (match[1] === '') {
    const suffix = Number(match[2]);
    if (suffix === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(match[1]);
  const end = match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1);
  if (start >= size) return 'unsatisfiable';
  if (end < start) return null;
  return { start, end };
}

export async function sendFile(
  ctx: Koa.Context,
  file: string,
  options: { downloadName: string; type: string },
): Promise<void> {
  const handle = await fs.promises.open(file, 'r');
  let size: number;
  let mtime: Date;
  try {
    const stat = await handle.stat();
    size = stat.size;
    mtime = stat.mtime;
  } catch (error) {
    await handle.close();
    throw error;
  }
  ctx.set('Accept-Ranges', 'bytes');
  ctx.set('Last-Modified', mtime.toUTCString());
  // RFC 6266: an ASCII fallback and the exact name (log file names are ASCII already).
  ctx.set('Content-Disposition', `attachment; filename="${options.downloadName.replace(/[^\x20-\x7e]|"/g, '_')}"`);
  ctx.type = options.type;
  const range = ctx.method === 'GET' ? parseRange(ctx.get('range') || undefined, size) : null;
  if (range === 'unsatisfiable') {
    await handle.close();
    ctx.status = 416;
    ctx.set('Content-Range', `bytes */${size}`);
    ctx.body = '';
    return;
  }
  const { start, end } = range ?? { start: 0, end: size - 1 };
  ctx.status = range ? 206 : 200;
  if (range) ctx.set('Content-Range', `bytes ${start}-${end}/${size}`);
  if (size === 0 || ctx.method === 'HEAD') {
    await handle.close();
    ctx.body = '';
    ctx.length = size === 0 ? 0 : end - start + 1;
    return;
  }
  // The open handle keeps serving the file even if it is zipped and removed meanwhile.
  ctx.body = handle.createReadStream({ start, end, autoClose: true });
  ctx.length = end - start + 1;
}
