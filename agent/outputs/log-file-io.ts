/**
 * Small file operations on log files: cutting a torn last line, reading the first and last
 * lines (a file's activity range) without reading the whole file, and compressing a closed
 * file to `.zip` crash-safely (temp file, fsync, rename, fsync of the folder, then delete).
 */
import fs from 'node:fs';
import path from 'node:path';
import yauzl from 'yauzl';
import yazl from 'yazl';
import { sidecarPath } from '../integrity/log-sidecar.js';
import { lineTime } from './log-line-format.js';
import type { LogFormat } from './log-file-names.js';

const CHUNK = 64 * 1024;

/**
 * Makes the file end on a whole line: anything after the last line feed (a line torn by a
 * crash) is cut off. Returns the number of bytes removed.
 */
export function cutTornLine(file: string): number {
  const fd = fs.openSync(file, 'r+');
  try {
    const size = fs.fstatSync(fd).size;
    if (size === 0) return 0;
    const buffer = Buffer.alloc(CHUNK);
    let end = size;
    while (end > 0) {
      const start = Math.max(0, end - CHUNK);
      const read = fs.readSync(fd, buffer, 0, end - start, start);
      const newline = buffer.subarray(0, read).lastIndexOf(0x0a);
      if (newline >= 0) {
        const keep = start + newline + 1;
        if (keep < size) fs.ftruncateSync(fd, keep);
        return size - keep;
      }
      end = start;
    }
    fs.ftruncateSync(fd, 0);
    return size;
  } finally {
    fs.closeSync(fd);
  }
}

export interface ActivityRange {
  activityFrom: string | null;
  activityTo: string | null;
}

/** The times of the first and the last record line of an uncompressed log file. */
export function readActivityRange(file: string, format: LogFormat): ActivityRange {
  const fd = fs.openSync(file, 'r');
  try {
    const size = fs.fstatSync(fd).size;
    const head = Buffer.alloc(Math.min(size, CHUNK));
    fs.readSync(fd, head, 0, head.length, 0);
    const tailStart = Math.max(0, size - CHUNK);
    const tail = Buffer.alloc(size - tailStart);
    fs.readSync(fd, tail, 0, tail.length, tailStart);
    const headLines = head.toString('utf8').split('\n').slice(0, -1);
    const tailLines = tail
      .toString('utf8')
      .split('\n')
      .slice(tailStart > 0 ? 1 : 0, -1);
    let activityFrom: string | null = null;
    for (const line of headLines) if ((activityFrom = lineTime(line, format)) !== null) break;
    let activityTo: string | null = null;
    for (let i = tailLines.length - 1; i >= 0; i--) if ((activityTo = lineTime(tailLines[i]!, format)) !== null) break;
    return { activityFrom, activityTo };
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Compresses `file` into `file.zip` (an entry with the file's name, and its sidecar
 * `<name>.sig` when it has one: docs/integrity.md), keeps its activity range in the zip comment
 * for listings, then removes `file` and its sidecar. A crash at any point leaves either the
 * originals or a complete zip (a leftover `.zip.tmp` is removed at start-up).
 */
export async function zipLogFile(file: string, range: ActivityRange): Promise<string> {
  const target = `${file}.zip`;
  const temp = `${target}.tmp`;
  const stat = fs.statSync(file);
  const zip = new yazl.ZipFile();
  zip.addFile(file, path.basename(file), { mtime: stat.mtime, compress: true });
  const sidecar = sidecarPath(file);
  const sidecarStat = fs.statSync(sidecar, { throwIfNoEntry: false });
  if (sidecarStat) zip.addFile(sidecar, path.basename(sidecar), { mtime: sidecarStat.mtime, compress: true });
  zip.end({ forceZip64Format: false, comment: JSON.stringify(range) });
  await new Promise<void>((resolve, reject) => {
    const out = fs.createWriteStream(temp, { mode: 0o600 });
    out.on('error', reject);
    out.on('close', resolve);
    zip.outputStream.on('error', reject);
    zip.outputStream.pipe(out);
  });
  const fd = fs.openSync(temp, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(temp, target);
  syncFolder(path.dirname(target));
  fs.unlinkSync(file);
  if (sidecarStat) fs.rmSync(sidecar, { force: true });
  return target;
}

/** The activity range kept in a log zip's comment (empty range when there is none). */
export function readZipRange(file: string): Promise<ActivityRange> {
  return new Promise((resolve) => {
    yauzl.open(file, { lazyEntries: true, autoClose: true }, (error, zip) => {
      if (error || !zip) return resolve({ activityFrom: null, activityTo: null });
      let range: ActivityRange = { activityFrom: null, activityTo: null };
      try {
        const parsed = JSON.parse(zip.comment) as Partial<ActivityRange>;
        range = { activityFrom: parsed.activityFrom ?? null, activityTo: parsed.activityTo ?? null };
      } catch {
        // Not one of ours, or no comment: the range stays unknown.
      }
      zip.close();
      resolve(range);
    });
  });
}

export function syncFolder(dir: string): void {
  if (process.platform === 'win32') return;
  const fd = fs.openSync(dir, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}
