/**
 * A LogFile output (docs/activity-pipeline.md): lines appended to today's `<name>_Log_YYYYMMDD.tsv|.json` in
 * the data dir's `logs/` folder, for a host's file activity or a domain's directory records.
 *
 * The lines of a batch are written and flushed to disk inside the batch's transaction, and the
 * file position after them is committed with the records (output_positions). If the agent dies
 * before COMMIT, start-up cuts the file back to the committed position; so after any crash the
 * file holds exactly the committed records, and never a torn line. Closed days are zipped and
 * old files deleted in the background.
 *
 * Each file has its sidecar `<file>.sig` (docs/integrity.md): its entry for a batch is written and
 * flushed with the batch's lines and undone with them, cut back with the file after a crash, and
 * signed at each checkpoint (`sign`) and when the file is closed.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { LogFileOptions } from '../config/monitoring-schema.js';
import type { Logger } from '../log/logger.js';
import type { StoredItem } from '../pipeline/pipeline-item.js';
import type { OutputPositions } from '../store/output-positions.js';
import type { StatusRegistry } from '../status/status-registry.js';
import { cutSidecar, LogSidecar, sidecarPath, type LogSigner } from '../integrity/log-sidecar.js';
import type { DiskGuard } from './disk-guard.js';
import type { ItemFilter } from './file-filter.js';
import { writeAll } from '../util/write-all.js';
import { cutTornLine } from './log-file-io.js';
import { maintainLogFiles } from './log-file-maintenance.js';
import { logFileName, parseLogFileName, utcDay, type LogFileName } from './log-file-names.js';
import { jsonLine, TSV_HEADER, tsvLine } from './log-line-format.js';
import { ownedFilter, ownedLogFileBase, ownerKeyOf, type OwnedOutput } from './output-owner.js';

/** A host output with its host, or a domain output with its domain (output-owner.ts), and where to write. */
export type LogFileOutputOptions = OwnedOutput & {
  dir: string;
  positions: OutputPositions;
  guard: DiskGuard;
  status: StatusRegistry;
  log: Logger;
  userId: number | null;
  /** Signs the sidecars (the agent's chain signing key); without one they are written unsigned. */
  signer?: LogSigner | null;
  now?: () => number;
};

interface OpenFile {
  name: string;
  fd: number;
  size: number;
  sidecar: LogSidecar;
}

export class LogFileOutput {
  readonly id: string;
  /** The host or domain whose records this output receives (output-owner.ts). */
  readonly ownerKey: string;
  readonly base: string;
  readonly options: LogFileOptions;
  readonly accepts: ItemFilter;
  private open: OpenFile | null = null;
  private undo: { size: number } | null = null;
  private pendingCount = 0;
  private pendingBytes = 0;
  private pendingNewFile = false;
  private pendingLastWhen = '';
  private blockedReason: string | null = null;
  private failedReason: string | null = null;
  private maintaining: Promise<void> | null = null;
  private readonly now: () => number;

  constructor(private readonly o: LogFileOutputOptions) {
    this.id = o.output.id;
    this.ownerKey = ownerKeyOf(o);
    this.base = ownedLogFileBase(o);
    this.options = o.output.logFile!;
    this.accepts = ownedFilter(o);
    this.now = o.now ?? Date.now;
  }

  /** This output's files in the folder (parsed names), oldest day first. */
  files(): LogFileName[] {
    let names: string[];
    try {
      // Regular files only: a symbolic link named like a log file is never cut, zipped or served
      // (zipping one would copy whatever it points at into the logs folder).
      names = fs
        .readdirSync(this.o.dir, { withFileTypes: true })
        .filter((entry) => entry.isFile())
        .map((entry) => entry.name);
    } catch {
      return [];
    }
    return names
      .map(parseLogFileName)
      .filter((f): f is LogFileName => f !== null && f.base === this.base && f.format === this.options.format)
      .sort((a, b) => a.day.localeCompare(b.day) || Number(a.zipped) - Number(b.zipped));
  }

  /**
   * Start-up repair: cut the current file back to the committed position, remove files that
   * only uncommitted batches wrote, cut torn last lines, finish or clean up interrupted zips.
   */
  recover(): void {
    const { dir, log } = this.o;
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const position = this.o.positions.get(this.id);
    const positionDay = position ? parseLogFileName(position.file)?.day : undefined;
    for (const name of fs.readdirSync(dir)) {
      if (!name.endsWith('.zip.tmp')) continue;
      const parsed = parseLogFileName(name.slice(0, -'.tmp'.length));
      if (parsed?.base === this.base && parsed.format === this.options.format) fs.rmSync(path.join(dir, name));
    }
    const files = this.files();
    const zipped = new Set(files.filter((f) => f.zipped).map((f) => f.fileName.slice(0, -'.zip'.length)));
    for (const file of files) {
      if (file.zipped) continue;
      const full = path.join(dir, file.fileName);
      if (zipped.has(file.fileName)) {
        // The zip was complete (renamed after fsync, the sidecar inside); only the delete of the
        // original was lost.
        fs.rmSync(full);
        fs.rmSync(sidecarPath(full), { force: true });
        continue;
      }
      if (positionDay !== undefined && file.day > positionDay) {
        log.warn('removed a log file written only by uncommitted batches', { file: file.fileName });
        fs.rmSync(full);
        fs.rmSync(sidecarPath(full), { force: true });
        continue;
      }
      const committedHere = position?.file === file.fileName ? position.offset : null;
      this.recoverSidecar(full, file.fileName, committedHere);
      const size = fs.statSync(full).size;
      if (committedHere !== null && size > committedHere) {
        fs.truncateSync(full, committedHere);
        log.warn('cut log file back to the last committed batch', {
          file: file.fileName,
          bytes: size - committedHere,
        });
        continue;
      }
      const cut = cutTornLine(full);
      if (cut > 0) log.warn('cut a torn last line from a log file', { file: file.fileName, bytes: cut });
    }
    this.refreshFileStats();
    this.o.status.setOutputStatus(this.id, 'OK', 'Writing log files', dir);
  }

  /** Inside the batch transaction: append and flush the lines, record the position. */
  write(items: readonly StoredItem[]): void {
    const accepted = items.filter(this.accepts);
    if (accepted.length === 0) return;
    const day = utcDay(this.now());
    const name = logFileName(this.base, day, this.options.format);
    let text = '';
    for (const item of accepted) {
      text += this.options.format === 'Tsv' ? tsvLine(item, this.o.userId) : jsonLine(item);
    }
    try {
      const file = this.fileFor(name);
      if (file.size === 0 && this.options.headerRow && this.options.format === 'Tsv') text = TSV_HEADER + text;
      const buffer = Buffer.from(text);
      const bytes = buffer.length;
      const verdict = this.o.guard.check(bytes);
      if (!verdict.ok) {
        this.drop(accepted.length, verdict.reason);
        return;
      }
      this.undo = { size: file.size };
      writeAll(file.fd, buffer);
      const sidecarBytes = file.sidecar.append(buffer, file.size + bytes);
      fs.fdatasyncSync(file.fd);
      file.sidecar.sync();
      if (file.size === 0) this.pendingNewFile = true;
      file.size += bytes;
      this.pendingBytes += bytes;
      this.o.guard.add(bytes + sidecarBytes);
      this.o.positions.set(this.id, { file: name, offset: file.size });
      this.pendingCount += accepted.length;
      this.pendingLastWhen = accepted[accepted.length - 1]!.stored.When;
      this.clearProblems();
    } catch (error) {
      this.rollback();
      this.fail(accepted.length, error as NodeJS.ErrnoException);
    }
  }

  /** The transaction did not commit: cut what this batch appended. */
  rollback(): void {
    const undo = this.undo;
    this.undo = null;
    this.pendingCount = 0;
    this.pendingBytes = 0;
    this.pendingNewFile = false;
    if (!undo || !this.open) return;
    try {
      fs.ftruncateSync(this.open.fd, undo.size);
      const sidecarBytes = this.open.sidecar.undo();
      this.o.guard.add(-(this.open.size - undo.size) - sidecarBytes);
      this.open.size = undo.size;
    } catch (error) {
      // Start-up recovery cuts the file back to the committed position anyway.
      this.o.log.error('could not cut back a log file', { file: this.open.name, error: (error as Error).message });
    }
  }

  /** After COMMIT. */
  committed(): void {
    this.undo = null;
    this.open?.sidecar.committed();
    if (this.pendingCount === 0) return;
    this.o.status.outputReported(this.id, this.pendingCount, this.pendingLastWhen);
    const stats = this.o.status.outputStats(this.id);
    stats.filesSize += this.pendingBytes;
    if (this.pendingNewFile) stats.filesCount++;
    this.pendingCount = 0;
    this.pendingBytes = 0;
    this.pendingNewFile = false;
  }

  /** Zips closed days, deletes files past retention, refreshes file statistics. */
  maintain(): Promise<void> {
    this.maintaining ??= this.doMaintain().finally(() => (this.maintaining = null));
    return this.maintaining;
  }

  /** Signs the open file's sidecar (between batches: at a checkpoint), if it moved since. */
  sign(timeMs: number = this.now()): void {
    if (!this.open || !this.o.signer) return;
    try {
      this.open.sidecar.sign(this.o.signer, timeMs);
    } catch (error) {
      this.o.log.error('could not sign a log file sidecar', { file: this.open.name, error: (error as Error).message });
    }
  }

  /** Closes the open file, signing its sidecar first. */
  close(): void {
    if (!this.open) return;
    this.sign();
    this.open.sidecar.close();
    fs.closeSync(this.open.fd);
    this.open = null;
  }

  /** Waits for background maintenance, then closes. */
  async stop(): Promise<void> {
    await this.maintaining?.catch(() => undefined);
    this.close();
  }

  private fileFor(name: string): OpenFile {
    if (this.open?.name === name) return this.open;
    const previous = this.open;
    this.close();
    fs.mkdirSync(this.o.dir, { recursive: true, mode: 0o700 });
    const full = path.join(this.o.dir, name);
    const fd = fs.openSync(full, 'a', 0o600);
    let sidecar: LogSidecar;
    try {
      const size = fs.fstatSync(fd).size;
      sidecar = LogSidecar.open(full, name, size, (lines) =>
        this.o.log.warn('log file had no sidecar for some of its lines: they are chained as they are now', {
          file: name,
          lines,
        }),
      );
      this.open = { name, fd, size, sidecar };
    } catch (error) {
      fs.closeSync(fd);
      throw error;
    }
    if (previous) setImmediate(() => void this.maintain()); // a day closed: zip it
    return this.open;
  }

  private async doMaintain(): Promise<void> {
    await maintainLogFiles({
      dir: this.o.dir,
      files: this.files(),
      today: utcDay(this.now()),
      options: this.options,
      openName: this.open?.name ?? null,
      guard: this.o.guard,
      log: this.o.log,
    });
    this.refreshFileStats();
  }

  /** Cuts the sidecar back to the committed size of its file (null: the file is complete). */
  private recoverSidecar(full: string, fileName: string, committedOffset: number | null): void {
    const cut = cutSidecar(full, committedOffset);
    if (cut > 0)
      this.o.log.warn('cut a log file sidecar back to the last committed batch', { file: fileName, bytes: cut });
  }

  private refreshFileStats(): void {
    const stats = this.o.status.outputStats(this.id);
    let count = 0;
    let size = 0;
    for (const file of this.files()) {
      const stat = fs.statSync(path.join(this.o.dir, file.fileName), { throwIfNoEntry: false });
      if (!stat) continue;
      count++;
      size += stat.size;
    }
    stats.filesCount = count;
    stats.filesSize = size;
  }

  private drop(count: number, reason: string): void {
    this.o.status.outputStats(this.id).droppedCount += count;
    if (this.blockedReason !== reason) {
      this.blockedReason = reason;
      this.o.log.warn('log file writing stopped', { output: this.id, reason });
    }
    this.o.status.setOutputStatus(
      this.id,
      'Warning',
      'Log file writing stopped',
      `${reason}; records are still stored in the audit database`,
    );
  }

  private fail(count: number, error: NodeJS.ErrnoException): void {
    this.o.status.outputStats(this.id).droppedCount += count;
    // Node's fs messages already start with the code ("ENOSPC: no space left on device, write").
    const reason =
      error.code && !error.message.startsWith(error.code) ? `${error.code}: ${error.message}` : error.message;
    if (this.failedReason !== reason) {
      this.failedReason = reason;
      this.o.log.error('log file write failed', { output: this.id, error: reason });
    }
    this.o.status.setOutputStatus(this.id, 'Error', 'Log file write failed', reason);
  }

  private clearProblems(): void {
    if (this.blockedReason === null && this.failedReason === null) return;
    this.blockedReason = null;
    this.failedReason = null;
    this.o.log.info('log file writing resumed', { output: this.id });
    this.o.status.setOutputStatus(this.id, 'OK', 'Writing log files', this.o.dir);
  }
}
