/**
 * LogFile output: lines and positions committed together, crash repair at start-up, the disk
 * quota, zipping of closed days, retention, and the log file listing the agent API serves.
 */
import fs from 'node:fs';
import path from 'node:path';
import yauzl from 'yauzl';
import { afterEach, describe, expect, it } from 'vitest';
import { settingsSchema, type Settings } from '../../agent/config/settings-schema.js';
import { localHostType } from '../../agent/config/monitoring-schema.js';
import { silentLogger } from '../../agent/log/logger.js';
import { DiskGuard, type StorageLimits } from '../../agent/outputs/disk-guard.js';
import { LogFileOutput } from '../../agent/outputs/log-file-output.js';
import { LogFilesService } from '../../agent/outputs/log-files-service.js';
import { TSV_HEADER } from '../../agent/outputs/log-line-format.js';
import type { StoredItem } from '../../agent/pipeline/pipeline-item.js';
import { AuditStore } from '../../agent/store/audit-store.js';
import { OutputPositions } from '../../agent/store/output-positions.js';
import { StatusRegistry } from '../../agent/status/status-registry.js';
import { makeTempDir } from '../helpers/temp-dir.js';

const DAY = 86_400_000;
const T0 = Date.parse('2026-03-10T08:00:00.000Z');

interface Rig {
  dir: string;
  store: AuditStore;
  status: StatusRegistry;
  settings: Settings;
  limits: StorageLimits;
  clock: { now: number };
  output(): LogFileOutput;
  /** Writes items in a committed transaction, as the pipeline does. */
  commit(output: LogFileOutput, items: StoredItem[]): void;
}

const stores: AuditStore[] = [];
afterEach(() => stores.splice(0).forEach((s) => s.close()));

function rig(logFile: Record<string, unknown> = {}): Rig {
  const root = makeTempDir();
  const dir = path.join(root, 'logs');
  const store = AuditStore.open({ file: path.join(root, 'audit.db') });
  stores.push(store);
  const status = new StatusRegistry();
  const settings = settingsSchema.parse({
    hosts: [{ id: 'h1', host: 'desk-01', type: localHostType(), includePaths: [root] }],
    outputs: [{ id: 'o1', hostId: 'h1', type: 'LogFile', logFile }],
  });
  const limits: StorageLimits = { maxLocalSize: 10 ** 9, minLocalFreeSpace: 0 };
  const clock = { now: T0 };
  const guard = new DiskGuard(
    dir,
    () => limits,
    () => 10 ** 12,
  );
  const positions = new OutputPositions(store.db);
  const output = (): LogFileOutput => {
    const o = new LogFileOutput({
      output: settings.outputs[0]!,
      host: settings.hosts[0]!,
      dir,
      positions,
      guard,
      status,
      log: silentLogger,
      userId: 1000,
      now: () => clock.now,
    });
    o.recover();
    return o;
  };
  const commit = (o: LogFileOutput, items: StoredItem[]): void => {
    store.transaction(() => o.write(items));
    o.committed();
  };
  return { dir, store, status, settings, limits, clock, output, commit };
}

let counter = 0;
function stored(timeMs: number, what = `/home/u/file-${++counter}.txt`): StoredItem {
  const record = {
    RID: String(counter),
    Who: 'desk-01\\u',
    Action: 'Added',
    What: what,
    When: new Date(timeMs).toISOString().replace(/\.\d{3}Z$/, 'Z'),
    Where: 'desk-01',
    ObjectType: 'File',
    DataSource: 'File System',
  };
  return { record, stored: record, timeMs, hostId: 'h1', file: { operation: 'Added', objectType: 'File', path: what } };
}

const read = (file: string): string => fs.readFileSync(file, 'utf8');

describe('LogFileOutput', () => {
  it('appends one TSV line per record to the day file, with the header row first when asked', () => {
    const r = rig({ headerRow: true });
    const o = r.output();
    r.commit(o, [stored(T0, '/home/u/a\tb.txt'), stored(T0 + 5)]);
    const file = path.join(r.dir, 'desk-01_Log_20260310.tsv');
    const lines = read(file).split('\n');
    expect(lines[0] + '\n').toBe(TSV_HEADER);
    expect(lines[1]).toBe('2026-03-10T08:00:00.000Z\tdesk-01\t1000\tAdd\tFILE\t/home/u/a\\tb.txt\t\t\tdesk-01\\\\u');
    expect(lines).toHaveLength(4);
    expect(r.status.output('o1')!.stats).toMatchObject({ reportedCount: 2, filesCount: 1 });
  });

  it('writes a literal backslash-n apart from a line feed, and escapes every character a line splitter breaks on', () => {
    const r = rig();
    const o = r.output();
    const literal = '/home/u/back\\n.txt'; // a file name with a backslash and an n in it
    const feed = '/home/u/line\nfeed.txt';
    const breakers = '/home/u/a\vb\fc\u0085d\u2028e\u2029f.txt';
    r.commit(o, [stored(T0, literal), stored(T0, feed), stored(T0, breakers)]);
    const text = read(path.join(r.dir, 'desk-01_Log_20260310.tsv'));
    const lines = text.split('\n');
    expect(lines).toHaveLength(4);
    const paths = lines.slice(0, 3).map((line) => line.split('\t')[5]);
    expect(paths).toEqual([
      '/home/u/back\\\\n.txt',
      '/home/u/line\\nfeed.txt',
      '/home/u/a\\vb\\fc\\u0085d\\u2028e\\u2029f.txt',
    ]);
    expect(text).not.toMatch(/[\v\f\u0085\u2028\u2029]/);
  });

  it('cuts back, at start-up, lines written for a batch that never committed (kill -9)', () => {
    const r = rig();
    const o = r.output();
    r.commit(o, [stored(T0), stored(T0)]);
    const file = path.join(r.dir, 'desk-01_Log_20260310.tsv');
    const committed = read(file);
    // The process dies after writing the lines and before COMMIT: the transaction rolls back,
    // nothing cuts the file, and half of a line is left at the end too.
    expect(() =>
      r.store.transaction(() => {
        o.write([stored(T0), stored(T0)]);
        throw new Error('killed');
      }),
    ).toThrow('killed');
    fs.appendFileSync(file, '2026-03-10T08:00:00.000Z\tdesk');
    o.close();
    r.output();
    expect(read(file)).toBe(committed);
  });

  it('cuts a torn last line from a file it has no committed position for', () => {
    const r = rig();
    fs.mkdirSync(r.dir, { recursive: true });
    const file = path.join(r.dir, 'desk-01_Log_20260310.tsv');
    fs.writeFileSync(file, 'a whole line\nhalf a li');
    const orphan = path.join(r.dir, 'other_Log_20260310.tsv');
    fs.writeFileSync(orphan, 'whole line\nhalf a li');
    r.output();
    expect(read(file)).toBe('a whole line\n');
    expect(read(orphan)).toBe('whole line\nhalf a li'); // not this output's file: left alone
  });

  it('removes a day file that only uncommitted batches wrote', () => {
    const r = rig();
    const o = r.output();
    r.commit(o, [stored(T0)]);
    o.close();
    const today = path.join(r.dir, 'desk-01_Log_20260310.tsv');
    const next = path.join(r.dir, 'desk-01_Log_20260311.tsv');
    fs.writeFileSync(next, 'line of a batch that never committed\n');
    const before = read(today);
    r.output();
    expect(read(today)).toBe(before);
    expect(fs.existsSync(next)).toBe(false);
  });

  it('stops writing at the disk quota with a status warning, counting what it could not write, and resumes', () => {
    const r = rig();
    const o = r.output();
    r.commit(o, [stored(T0)]);
    r.limits.maxLocalSize = fs.statSync(path.join(r.dir, 'desk-01_Log_20260310.tsv')).size + 10;
    r.commit(o, [stored(T0), stored(T0)]);
    const view = r.status.output('o1')!;
    expect(view.status).toMatchObject({ type: 'Warning', summary: 'Log file writing stopped' });
    expect(view.status.details).toContain('disk quota');
    expect(view.stats.droppedCount).toBe(2);
    r.limits.maxLocalSize = 10 ** 9;
    r.commit(o, [stored(T0)]);
    expect(r.status.output('o1')!.status.type).toBe('OK');
    expect(read(path.join(r.dir, 'desk-01_Log_20260310.tsv')).split('\n')).toHaveLength(3);
  });

  it('stops writing when the disk is nearly full (minLocalFreeSpace)', () => {
    const r = rig();
    r.limits.minLocalFreeSpace = 10 ** 13; // more than the disk has
    const o = r.output();
    r.commit(o, [stored(T0)]);
    expect(r.status.output('o1')!.status.details).toContain('less than');
    expect(fs.existsSync(path.join(r.dir, 'desk-01_Log_20260310.tsv'))).toBe(true); // opened, empty
    expect(read(path.join(r.dir, 'desk-01_Log_20260310.tsv'))).toBe('');
  });

  it('zips closed days keeping their activity range, lists them, and deletes files past retention', async () => {
    const r = rig({ daysToRetain: 10 });
    const o = r.output();
    r.commit(o, [stored(T0), stored(T0 + 60_000)]);
    r.clock.now = T0 + DAY;
    r.commit(o, [stored(T0 + DAY)]);
    await o.maintain();
    const zip = path.join(r.dir, 'desk-01_Log_20260310.tsv.zip');
    expect(fs.existsSync(zip)).toBe(true);
    expect(fs.existsSync(path.join(r.dir, 'desk-01_Log_20260310.tsv'))).toBe(false);
    expect(fs.existsSync(path.join(r.dir, 'desk-01_Log_20260310.tsv.sig'))).toBe(false);
    const entries = await new Promise<string[]>((resolve, reject) =>
      yauzl.open(zip, { lazyEntries: false }, (error, zipfile) => {
        if (error || !zipfile) return reject(error);
        const names: string[] = [];
        zipfile.on('entry', (entry: yauzl.Entry) => names.push(entry.fileName));
        zipfile.on('end', () => resolve(names));
      }),
    );
    // The file and its sidecar (docs/integrity.md).
    expect(entries).toEqual(['desk-01_Log_20260310.tsv', 'desk-01_Log_20260310.tsv.sig']);

    const service = new LogFilesService(r.dir, () => r.settings);
    const listed = await service.list('o1');
    expect(listed.map((f) => [f.id, f.isZip, f.type, f.outputId])).toEqual([
      ['desk-01_Log_20260311.tsv', false, 'Tsv', 'o1'],
      ['desk-01_Log_20260310.tsv.zip', true, 'Tsv', 'o1'],
    ]);
    expect(listed[1]).toMatchObject({
      activityFrom: '2026-03-10T08:00:00.000Z',
      activityTo: '2026-03-10T08:01:00.000Z',
      isArchived: false,
      localPath: zip,
    });
    expect(listed[0]!.activityFrom).toBe('2026-03-11T08:00:00.000Z');

    // 10 days of retention: on the 21st the file of the 11th stays, the one of the 10th goes.
    r.clock.now = T0 + 11 * DAY;
    r.commit(o, [stored(r.clock.now)]);
    await o.maintain();
    expect(fs.readdirSync(r.dir).sort()).toEqual([
      'desk-01_Log_20260311.tsv.zip',
      'desk-01_Log_20260321.tsv',
      'desk-01_Log_20260321.tsv.sig',
    ]);
  });
});

describe('symbolic links in the logs folder', () => {
  it('are never cut, zipped or counted, whatever they point at', async () => {
    const r = rig();
    const outside = path.join(r.dir, '..', 'secret.txt');
    fs.mkdirSync(r.dir, { recursive: true });
    fs.writeFileSync(outside, 'no newline at the end');
    fs.symlinkSync(outside, path.join(r.dir, 'desk-01_Log_20260301.tsv'));
    const o = r.output(); // start-up repair would cut a torn last line
    r.commit(o, [stored(T0)]);
    await o.maintain(); // a closed day would be zipped
    expect(fs.readFileSync(outside, 'utf8')).toBe('no newline at the end');
    expect(fs.existsSync(path.join(r.dir, 'desk-01_Log_20260301.tsv.zip'))).toBe(false);
    expect(r.status.output('o1')?.stats.filesCount).toBe(1);
    const service = new LogFilesService(r.dir, () => r.settings);
    expect((await service.list('o1')).map((f) => f.id)).toEqual(['desk-01_Log_20260310.tsv']);
    expect(await service.open('desk-01_Log_20260301.tsv')).toBeNull();
  });
});

describe('LogFilesService.get', () => {
  it('finds a log file by its name and nothing else', async () => {
    const r = rig();
    r.commit(r.output(), [stored(T0)]);
    fs.writeFileSync(path.join(r.dir, '..', 'settings.json'), '{}');
    const service = new LogFilesService(r.dir, () => r.settings);
    expect((await service.get('desk-01_Log_20260310.tsv'))?.size).toBeGreaterThan(0);
    for (const id of [
      '../settings.json',
      'desk-01_Log_20260310.tsv/..',
      '..%2Fsettings.json',
      'desk-01_Log_20260309.tsv',
      '',
    ]) {
      expect(await service.get(id)).toBeNull();
    }
  });
});
