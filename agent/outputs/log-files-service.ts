/**
 * The log files as the agent API lists them (docs/activity-pipeline.md, docs/agent-api.md): id (the file
 * name), size, localPath, isZip, isArchived, type, updatedAt, activityFrom, activityTo,
 * outputId, for host and domain outputs alike. `get` accepts only the name of a log file in the
 * logs folder, so an id can never lead outside it (no separators, no `..`, no symlinks). A plain file's sidecar (docs/integrity.md)
 * is not listed (the listing's shape is the API's) but opens by the id `<file id>.sig`; a zipped
 * file holds its sidecar.
 */
import fs from 'node:fs';
import path from 'node:path';
import { readActivityRange, readZipRange, type ActivityRange } from './log-file-io.js';
import { parseLogFileName, type LogFileName } from './log-file-names.js';
import { SIDECAR_SUFFIX } from '../integrity/log-sidecar-format.js';
import { logFileOwners, type LogFileOwnerSettings } from './orphan-log-files.js';

export interface LogFileInfo {
  id: string;
  size: number;
  localPath: string;
  isZip: boolean;
  /** Moved to an archive location (not supported by this agent: always false). */
  isArchived: boolean;
  type: 'Tsv' | 'Json';
  updatedAt: string;
  /** Time of the first and last record in the file; null for a file without records. */
  activityFrom: string | null;
  activityTo: string | null;
  /** The output that writes such files; null when no output claims them any more. */
  outputId: string | null;
}

/** A log file opened for download: read it through `handle`; close the handle when done. */
export interface OpenLogFile {
  handle: fs.promises.FileHandle;
  name: string;
  size: number;
  mtime: Date;
  type: 'Tsv' | 'Json';
  isZip: boolean;
  /** The sidecar of a plain log file (JSON lines), opened by `<file id>.sig`. */
  isSidecar: boolean;
}

/** The log file an id names: the file itself, or a plain file's sidecar. */
function parseFileId(fileId: string): { parsed: LogFileName; sidecar: boolean } | null {
  const sidecar = fileId.endsWith(SIDECAR_SUFFIX);
  const parsed = parseLogFileName(sidecar ? fileId.slice(0, -SIDECAR_SUFFIX.length) : fileId);
  if (!parsed || (sidecar && parsed.zipped)) return null;
  return { parsed, sidecar };
}

/** Refuse a symbolic link where the name should be a file (POSIX; Windows has no such flag). */
const NO_FOLLOW = fs.constants.O_NOFOLLOW ?? 0;

export class LogFilesService {
  private readonly zipRanges = new Map<string, { stamp: string; range: ActivityRange }>();

  constructor(
    readonly dir: string,
    private readonly settings: () => LogFileOwnerSettings,
  ) {}

  /** Every log file, or those of one output; newest first. */
  async list(outputId?: string): Promise<LogFileInfo[]> {
    let names: string[];
    try {
      names = await fs.promises.readdir(this.dir);
    } catch {
      return [];
    }
    const owners = logFileOwners(this.settings());
    const out: LogFileInfo[] = [];
    for (const name of names) {
      const parsed = parseLogFileName(name);
      if (!parsed) continue;
      const owner = owners.get(`${parsed.base}.${parsed.format}`) ?? null;
      if (outputId !== undefined && owner !== outputId) continue;
      const info = await this.describe(name, owner);
      if (info) out.push(info);
    }
    return out.sort((a, b) => b.id.localeCompare(a.id));
  }

  /** One file by id, or null when there is no such log file. */
  async get(fileId: string): Promise<LogFileInfo | null> {
    const parsed = parseLogFileName(fileId);
    if (!parsed) return null;
    const owner = logFileOwners(this.settings()).get(`${parsed.base}.${parsed.format}`) ?? null;
    return this.describe(fileId, owner);
  }

  /**
   * Opens a log file by id for reading, or null when there is none. Only a name that is a log
   * file name (no separator, no `..`, nothing but `[A-Za-z0-9._-]`) is ever joined to the logs
   * folder, so nothing outside it is touched; the file is opened without following a symbolic
   * link and must be a regular file. The size is the file's at this moment (it may grow).
   */
  async open(fileId: string): Promise<OpenLogFile | null> {
    const id = parseFileId(fileId);
    if (!id) return null;
    const { parsed, sidecar } = id;
    const name = sidecar ? parsed.fileName + SIDECAR_SUFFIX : parsed.fileName;
    let handle: fs.promises.FileHandle;
    try {
      handle = await fs.promises.open(path.join(this.dir, name), fs.constants.O_RDONLY | NO_FOLLOW);
    } catch {
      return null;
    }
    try {
      const stat = await handle.stat();
      if (!stat.isFile()) throw new Error('not a regular file');
      return {
        handle,
        name,
        size: stat.size,
        mtime: stat.mtime,
        type: parsed.format,
        isZip: parsed.zipped,
        isSidecar: sidecar,
      };
    } catch {
      await handle.close();
      return null;
    }
  }

  /** Whether a plain log file has a sidecar beside it (a regular file). */
  async hasSidecar(fileId: string): Promise<boolean> {
    const parsed = parseLogFileName(fileId);
    if (!parsed || parsed.zipped) return false;
    const stat = await fs.promises.lstat(path.join(this.dir, fileId + SIDECAR_SUFFIX)).catch(() => null);
    return stat?.isFile() ?? false;
  }

  private async describe(name: string, outputId: string | null): Promise<LogFileInfo | null> {
    const parsed = parseLogFileName(name)!;
    const localPath = path.join(this.dir, name);
    const stat = await fs.promises.lstat(localPath).catch(() => null);
    if (!stat?.isFile()) return null;
    let range: ActivityRange;
    if (parsed.zipped) {
      const stamp = `${stat.size}:${stat.mtimeMs}`;
      const cached = this.zipRanges.get(name);
      if (cached?.stamp === stamp) range = cached.range;
      else {
        range = await readZipRange(localPath);
        this.zipRanges.set(name, { stamp, range });
      }
    } else {
      try {
        range = readActivityRange(localPath, parsed.format);
      } catch {
        range = { activityFrom: null, activityTo: null };
      }
    }
    return {
      id: name,
      size: stat.size,
      localPath,
      isZip: parsed.zipped,
      isArchived: false,
      type: parsed.format,
      updatedAt: stat.mtime.toISOString(),
      activityFrom: range.activityFrom,
      activityTo: range.activityTo,
      outputId,
    };
  }
}
