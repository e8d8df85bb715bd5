/**
 * `vigil verify --logs FOLDER` (docs/integrity.md): checks every log file of a folder
 * (`*.tsv`, `*.json`, and their `.zip`) against its sidecar, with log-file-check.ts. Read-only:
 * it runs on the agent's own logs folder while the agent writes (the newest lines of a growing
 * file are checked once their sidecar entry is written), and on copies taken elsewhere.
 */
import fs from 'node:fs';
import path from 'node:path';
import type crypto from 'node:crypto';
import type { Readable } from 'node:stream';
import yauzl from 'yauzl';
import { LogFileCheck, type LogFileResult } from './log-file-check.js';
import { SIDECAR_SUFFIX } from './log-sidecar-format.js';
import type { Problem, VerifiedRange } from './verify-report.js';

const LOG_FILE = /\.(tsv|json)(\.zip)?$/;
const CHUNK = 4 * 1024 * 1024;
/** How long a line written without its sidecar entry yet is given to get one. */
const FOLLOW_WAITS_MS = [20, 50, 100, 200];

export interface LogFolderCheck {
  problems: Problem[];
  verified: VerifiedRange[];
  files: number;
  lines: number;
}

export async function verifyLogFolder(folder: string, publicKey: crypto.KeyObject | null): Promise<LogFolderCheck> {
  const entries = fs.readdirSync(folder, { withFileTypes: true }).filter((e) => e.isFile());
  const names = new Set(entries.map((e) => e.name));
  const out: LogFolderCheck = { problems: [], verified: [], files: 0, lines: 0 };
  for (const name of [...names].sort()) {
    const full = path.join(folder, name);
    let result: LogFileResult | null;
    if (name.endsWith(SIDECAR_SUFFIX)) {
      const log = name.slice(0, -SIDECAR_SUFFIX.length);
      if (LOG_FILE.test(log) && !names.has(log) && !names.has(`${log}.zip`)) {
        out.problems.push({
          file: log,
          kind: 'removed',
          detail: `the log file is missing; its sidecar ${name} remains`,
        });
      }
      continue;
    }
    if (!LOG_FILE.test(name)) continue;
    try {
      result = name.endsWith('.zip') ? await checkZip(full, name, publicKey) : await checkFile(full, name, publicKey);
    } catch (error) {
      out.problems.push({ file: name, kind: 'changed', detail: `could not be read: ${(error as Error).message}` });
      continue;
    }
    if (result === null) continue;
    out.files++;
    out.lines += result.lines;
    out.problems.push(...result.problems);
    out.verified.push(...result.verified);
  }
  return out;
}

function noSidecar(name: string): LogFileResult {
  return {
    problems: [
      { file: name, kind: 'signature', detail: `has no sidecar (${name}${SIDECAR_SUFFIX}): it cannot be verified` },
    ],
    verified: [],
    lines: 0,
  };
}

/** A plain log file, followed while the agent may still append to it. */
async function checkFile(
  full: string,
  name: string,
  publicKey: crypto.KeyObject | null,
): Promise<LogFileResult | null> {
  const sidecarFile = full + SIDECAR_SUFFIX;
  let sidecarRead = 0;
  const readSidecar = (check: LogFileCheck): void => {
    const size = fs.statSync(sidecarFile).size;
    if (size <= sidecarRead) return;
    const fd = fs.openSync(sidecarFile, 'r');
    try {
      const bytes = Buffer.alloc(size - sidecarRead);
      const n = fs.readSync(fd, bytes, 0, bytes.length, sidecarRead);
      sidecarRead += n;
      check.addSidecarText(bytes.toString('utf8', 0, n));
    } finally {
      fs.closeSync(fd);
    }
  };
  if (!fs.existsSync(sidecarFile)) return fs.statSync(full).size === 0 ? null : noSidecar(name);
  const check = new LogFileCheck(name, name, publicKey);
  readSidecar(check);
  const handle = await fs.promises.open(full, 'r');
  try {
    let read = 0;
    let waits = 0;
    for (;;) {
      const size = (await handle.stat()).size;
      // Read what the sidecar accounts for; past it, give the agent a moment to write the entry.
      const covered = Math.max(check.coveredOffset, read);
      const limit = waits >= FOLLOW_WAITS_MS.length ? size : Math.min(size, covered);
      while (read < limit) {
        const chunk = Buffer.allocUnsafe(Math.min(CHUNK, limit - read));
        const { bytesRead } = await handle.read(chunk, 0, chunk.length, read);
        if (bytesRead === 0) break;
        check.addFileBytes(chunk.subarray(0, bytesRead));
        read += bytesRead;
      }
      if (read >= size) break;
      await new Promise((resolve) => setTimeout(resolve, FOLLOW_WAITS_MS[waits++]));
      readSidecar(check);
    }
  } finally {
    await handle.close();
  }
  return check.finish();
}

/** A zipped log file: its entry and its sidecar's, read from the zip. */
async function checkZip(full: string, name: string, publicKey: crypto.KeyObject | null): Promise<LogFileResult> {
  const logName = name.slice(0, -'.zip'.length);
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.open(full, { lazyEntries: true, autoClose: false }, (error, z) => (error || !z ? reject(error) : resolve(z))),
  );
  try {
    const found = new Map<string, yauzl.Entry>();
    await new Promise<void>((resolve, reject) => {
      zip.on('entry', (entry: yauzl.Entry) => {
        found.set(entry.fileName, entry);
        zip.readEntry();
      });
      zip.on('end', resolve);
      zip.on('error', reject);
      zip.readEntry();
    });
    const logEntry = found.get(logName);
    const sidecarEntry = found.get(logName + SIDECAR_SUFFIX);
    if (!logEntry)
      return { problems: [{ file: name, kind: 'removed', detail: `holds no ${logName}` }], verified: [], lines: 0 };
    if (!sidecarEntry) return noSidecar(name);
    const check = new LogFileCheck(name, logName, publicKey);
    const sidecarChunks: Buffer[] = [];
    for await (const chunk of await openEntry(zip, sidecarEntry)) sidecarChunks.push(chunk as Buffer);
    check.addSidecarText(Buffer.concat(sidecarChunks).toString('utf8'));
    for await (const chunk of await openEntry(zip, logEntry)) check.addFileBytes(chunk as Buffer);
    return check.finish();
  } finally {
    zip.close();
  }
}

function openEntry(zip: yauzl.ZipFile, entry: yauzl.Entry): Promise<Readable> {
  return new Promise((resolve, reject) =>
    zip.openReadStream(entry, (error, stream) => (error || !stream ? reject(error) : resolve(stream))),
  );
}
