/**
 * Reading log files in the console (shared/console-api.ts `ConsoleLogFilePaths`): ranges of
 * lines by number, optionally only the lines containing a text, for any file the log files
 * service lists. Each open file keeps a sparse line index (log-line-index.ts), extended as the
 * file grows and rebuilt when it shrinks or is replaced; the few most recently used files stay
 * open. A `.zip` is extracted once into the data dir's view cache (owner-only) and read from there.
 */
import fs from 'node:fs';
import fsp, { type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Transform } from 'node:stream';
import yauzl from 'yauzl';
import {
  MAX_LOG_LINE_CHARS,
  MAX_LOG_LINES_PER_REQUEST,
  type LogLine,
  type LogLinesResponse,
} from '../../shared/console-api.js';
import { LineIndex, LineMatches } from './log-line-index.js';
import type { LogFileInfo, LogFilesService } from './log-files-service.js';

/** The id names no log file (any more): never a path, so nothing outside the logs folder. */
export class LogFileMissingError extends Error {
  constructor(readonly fileId: string) {
    super(`there is no log file "${fileId}" (it may have been compressed or deleted)`);
    this.name = 'LogFileMissingError';
  }
}

/** A request the viewer refuses (bad range, bad filter); names the query parameter. */
export class LogViewRequestError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
    this.name = 'LogViewRequestError';
  }
}

export const MAX_FILTER_LENGTH = 200;
/** Larger zip entries are not extracted for viewing (they can still be downloaded). */
const MAX_EXTRACTED_BYTES = 4 * 1024 ** 3;
const MAX_OPEN_VIEWS = 6;
const MAX_FILTERS_PER_VIEW = 4;

interface View {
  fileId: string;
  /** The file read: the log file itself, or the extracted copy of a zip. */
  path: string;
  extracted: boolean;
  handle: FileHandle;
  identity: string;
  index: LineIndex;
  filters: Map<string, LineMatches>;
  /** Serializes work on this view: an index is extended by one pass at a time. */
  queue: Promise<unknown>;
}

const identityOf = (stat: fs.Stats): string => `${stat.dev}:${stat.ino}`;

function decodeLine(n: number, bytes: Buffer | undefined): LogLine {
  let text = bytes ? bytes.toString('utf8') : '';
  if (text.endsWith('\r')) text = text.slice(0, -1);
  if (text.length > MAX_LOG_LINE_CHARS) return { n, text: text.slice(0, MAX_LOG_LINE_CHARS), truncated: true };
  return { n, text };
}

export class LogFileViewer {
  /** Most recently used last. */
  private readonly views = new Map<string, View>();
  private extracting = new Map<string, Promise<View>>();
  private closed = false;

  constructor(
    private readonly files: LogFilesService,
    private readonly cacheDir: string,
  ) {}

  /** Removes what an earlier run left in the view cache. */
  async start(): Promise<void> {
    await fsp.rm(this.cacheDir, { recursive: true, force: true });
  }

  /**
   * Lines `from` … `from + count − 1` of the file, or of its lines containing `filter`
   * (case-insensitive; then `from` and `totalLines` count matching lines).
   */
  async lines(fileId: string, from: number, count: number, filter: string | null): Promise<LogLinesResponse> {
    if (!Number.isSafeInteger(from) || from < 0)
      throw new LogViewRequestError('from', 'from must be a line number (0 or more)');
    if (!Number.isSafeInteger(count) || count < 0 || count > MAX_LOG_LINES_PER_REQUEST) {
      throw new LogViewRequestError('count', `count must be from 0 to ${MAX_LOG_LINES_PER_REQUEST}`);
    }
    const needle = filter === null || filter === '' ? null : filter;
    if (needle !== null && (needle.length > MAX_FILTER_LENGTH || /[\r\n]/.test(needle))) {
      throw new LogViewRequestError('filter', `the filter must be one line of at most ${MAX_FILTER_LENGTH} characters`);
    }
    const info = await this.files.get(fileId);
    if (!info) {
      await this.forget(fileId);
      throw new LogFileMissingError(fileId);
    }
    const view = await this.view(info);
    return this.serial(view, async () => {
      await this.refresh(view);
      if (needle === null) {
        const to = Math.min(view.index.lines, from + count);
        const lines = await view.index.range(view.handle, Math.min(from, to), to);
        return {
          fileId,
          totalLines: view.index.lines,
          from,
          lines: lines.map((bytes, i) => decodeLine(from + i, bytes)),
          filter: null,
        };
      }
      const key = needle.toLowerCase();
      let matches = view.filters.get(key);
      if (!matches) {
        matches = new LineMatches(key);
        if (view.filters.size >= MAX_FILTERS_PER_VIEW) view.filters.delete(view.filters.keys().next().value!);
        view.filters.set(key, matches);
      }
      await matches.extend(view.index, view.handle);
      const numbers = matches.slice(from, count);
      const picked = await view.index.pick(view.handle, numbers);
      return {
        fileId,
        totalLines: matches.count,
        from,
        lines: numbers.map((n) => decodeLine(n, picked.get(n))),
        filter: needle,
      };
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const id of [...this.views.keys()]) await this.forget(id);
    await fsp.rm(this.cacheDir, { recursive: true, force: true });
  }

  private serial<T>(view: View, work: () => Promise<T>): Promise<T> {
    const next = view.queue.then(work, work);
    view.queue = next.catch(() => undefined);
    return next;
  }

  /** The open view of a file, opening (or extracting) it when needed. */
  private async view(info: LogFileInfo): Promise<View> {
    if (this.closed) throw new Error('the log file viewer is closed');
    const existing = this.views.get(info.id);
    if (existing) {
      this.views.delete(info.id);
      this.views.set(info.id, existing); // most recently used
      return existing;
    }
    let pending = this.extracting.get(info.id);
    if (!pending) {
      pending = this.open(info).finally(() => this.extracting.delete(info.id));
      this.extracting.set(info.id, pending);
    }
    const view = await pending;
    this.views.set(info.id, view);
    while (this.views.size > MAX_OPEN_VIEWS) await this.forget(this.views.keys().next().value!);
    return view;
  }

  private async open(info: LogFileInfo): Promise<View> {
    const extracted = info.isZip;
    const file = extracted ? await this.extract(info) : info.localPath;
    const handle = await fsp.open(file, 'r');
    const stat = await handle.stat();
    return {
      fileId: info.id,
      path: file,
      extracted,
      handle,
      identity: identityOf(stat),
      index: new LineIndex(),
      filters: new Map(),
      queue: Promise.resolve(),
    };
  }

  /** Brings the index up to the file's current size; starts over when it was cut or replaced. */
  private async refresh(view: View): Promise<void> {
    if (!view.extracted) {
      const stat = await fsp.stat(view.path).catch(() => null);
      if (!stat) throw new LogFileMissingError(view.fileId);
      if (identityOf(stat) !== view.identity) {
        await view.handle.close().catch(() => undefined);
        view.handle = await fsp.open(view.path, 'r');
        view.identity = identityOf(await view.handle.stat());
        view.index = new LineIndex();
        view.filters.clear();
      }
    }
    const size = (await view.handle.stat()).size;
    if (size < view.index.bytes) {
      view.index = new LineIndex(); // cut back (start-up recovery) or rewritten
      view.filters.clear();
    }
    if (size > view.index.bytes) await view.index.extend(view.handle, size);
  }

  private async forget(fileId: string): Promise<void> {
    const view = this.views.get(fileId);
    if (!view) return;
    this.views.delete(fileId);
    await view.queue;
    await view.handle.close().catch(() => undefined);
    if (view.extracted) await fsp.rm(view.path, { force: true });
  }

  /** Extracts the log file inside a zip into the view cache (size checked against the entry's). */
  private async extract(info: LogFileInfo): Promise<string> {
    await fsp.mkdir(this.cacheDir, { recursive: true, mode: 0o700 });
    const inner = info.id.replace(/\.zip$/, '');
    const target = path.join(this.cacheDir, `${inner}.${Date.now()}`);
    const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
      yauzl.open(info.localPath, { lazyEntries: true, autoClose: false, validateEntrySizes: true }, (error, z) =>
        error || !z ? reject(error ?? new Error('cannot open the zip')) : resolve(z),
      ),
    );
    try {
      const entry = await new Promise<yauzl.Entry>((resolve, reject) => {
        zip.on('entry', (e: yauzl.Entry) => (e.fileName === inner ? resolve(e) : zip.readEntry()));
        zip.on('end', () => reject(new Error(`the zip holds no ${inner}`)));
        zip.on('error', reject);
        zip.readEntry();
      });
      if (entry.uncompressedSize > MAX_EXTRACTED_BYTES) {
        throw new LogViewRequestError('id', 'this compressed file is too large to view here; download it instead');
      }
      const stream = await new Promise<NodeJS.ReadableStream>((resolve, reject) =>
        zip.openReadStream(entry, (error, s) =>
          error || !s ? reject(error ?? new Error('unreadable entry')) : resolve(s),
        ),
      );
      let written = 0;
      const limit = new Transform({
        transform(chunk: Buffer, _encoding, callback) {
          written += chunk.length;
          callback(written > MAX_EXTRACTED_BYTES ? new Error('the entry is larger than it says') : null, chunk);
        },
      });
      await pipeline(stream, limit, fs.createWriteStream(target, { mode: 0o600 }));
      return target;
    } catch (error) {
      await fsp.rm(target, { force: true });
      throw error;
    } finally {
      zip.close();
    }
  }
}
