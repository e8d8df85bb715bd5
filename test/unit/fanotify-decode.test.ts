/**
 * Decoding of fanotify read(2) buffers by the native addon (native/src/fanotify_decode.cc):
 * a buffer recorded from the kernel (native/tools/capture.c: `echo hi > note.txt; mkdir made;
 * mv note.txt sub/renamed.txt; rm sub/renamed.txt; rmdir made`), buffers built byte for byte
 * after linux/fanotify.h, malformed ones, and the same decoder under valgrind.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadAddon } from '../../agent/monitor/fanotify/addon.js';
import { FAN, kindsOf } from '../../agent/monitor/fanotify/event-kinds.js';
import { REPO_ROOT } from '../helpers/cli.js';
import { buildNativeDriver, memcheck, valgrindMissing } from '../helpers/native-driver.js';

const { addon, error: addonError } = loadAddon();
const RECORDED = path.join(REPO_ROOT, 'test', 'fixtures', 'fanotify', 'create-write-rename-delete.bin');

const INFO = { FID: 1, DFID_NAME: 2, DFID: 3, PIDFD: 4, OLD_DFID_NAME: 10, NEW_DFID_NAME: 12 } as const;

/** One info record: header, fsid, struct file_handle, optional NUL-terminated name, padded to 4. */
function record(
  type: number,
  handle: Buffer,
  name?: string,
  fsid: [number, number] = [0x11223344, 0x55667788],
): Buffer {
  const nameBytes = name === undefined ? Buffer.alloc(0) : Buffer.from(`${name}\0`);
  const body = 4 + 8 + 8 + handle.length + nameBytes.length;
  const len = Math.ceil(body / 4) * 4;
  const out = Buffer.alloc(len);
  out.writeUInt8(type, 0);
  out.writeUInt16LE(len, 2);
  out.writeInt32LE(fsid[0], 4);
  out.writeInt32LE(fsid[1], 8);
  out.writeUInt32LE(handle.length, 12);
  out.writeInt32LE(1, 16); // handle_type
  handle.copy(out, 20);
  nameBytes.copy(out, 20 + handle.length);
  return out;
}

/** struct fanotify_event_metadata (24 bytes, version 3) followed by its records. */
function event(mask: number, pid: number, records: Buffer[]): Buffer {
  const head = Buffer.alloc(24);
  const len = 24 + records.reduce((n, r) => n + r.length, 0);
  head.writeUInt32LE(len, 0);
  head.writeUInt8(3, 4);
  head.writeUInt16LE(24, 6);
  head.writeBigUInt64LE(BigInt(mask), 8);
  head.writeInt32LE(-1, 16);
  head.writeInt32LE(pid, 20);
  return Buffer.concat([head, ...records]);
}

const DIR_HANDLE = Buffer.from('0a60170038d82b20', 'hex');
const FILE_HANDLE = Buffer.from('0e6017002db87f61', 'hex');

describe('fanotify buffer decoding (native addon)', () => {
  beforeEach((ctx) => {
    if (!addon) ctx.skip(`fanotify addon absent: ${addonError}`);
  });

  it('decodes a buffer recorded from the kernel: create, write, mkdir, rename across folders, delete', () => {
    const { events, error } = addon!.decode(fs.readFileSync(RECORDED));
    expect(error).toBeNull();
    const summary = events.map((e) => ({
      kinds: kindsOf(e.mask),
      isDir: (e.mask & FAN.ONDIR) !== 0,
      records: e.records.map((r) => [r.type, r.name ?? null]),
    }));
    expect(summary).toEqual([
      { kinds: ['create'], isDir: false, records: [[INFO.DFID_NAME, 'note.txt']] },
      {
        kinds: ['modify', 'closeWrite'],
        isDir: false,
        records: [
          [INFO.DFID_NAME, 'note.txt'],
          [INFO.FID, null],
        ],
      },
      { kinds: ['create'], isDir: true, records: [[INFO.DFID_NAME, 'made']] },
      {
        kinds: ['rename'],
        isDir: false,
        records: [
          [INFO.OLD_DFID_NAME, 'note.txt'],
          [INFO.NEW_DFID_NAME, 'renamed.txt'],
        ],
      },
      { kinds: ['delete'], isDir: false, records: [[INFO.DFID_NAME, 'renamed.txt']] },
      { kinds: ['delete'], isDir: true, records: [[INFO.DFID_NAME, 'made']] },
    ]);
    // One process per shell command, and the folder's handle is the same in every record naming it.
    expect(new Set(events.map((e) => e.pid)).size).toBe(5);
    const folder = events[0]!.records[0]!.handle;
    expect(events[2]!.records[0]!.handle).toBe(folder);
    expect(events[3]!.records[0]!.handle).toBe(folder);
    expect(events[3]!.records[1]!.handle).not.toBe(folder); // sub/
    expect(events[4]!.records[0]!.handle).toBe(events[3]!.records[1]!.handle);
  });

  it('decodes a byte-exact buffer: fsid and handle bytes, several events, unknown record types skipped', () => {
    const pidfd = Buffer.alloc(8);
    pidfd.writeUInt8(INFO.PIDFD, 0);
    pidfd.writeUInt16LE(8, 2);
    const buf = Buffer.concat([
      event(FAN.CREATE | FAN.ONDIR, 4242, [record(INFO.DFID_NAME, DIR_HANDLE, 'projects')]),
      event(FAN.CLOSE_WRITE, 77, [
        pidfd,
        record(INFO.DFID_NAME, DIR_HANDLE, 'ünïcode name.txt'),
        record(INFO.FID, FILE_HANDLE),
      ]),
      event(FAN.Q_OVERFLOW, 0, []),
    ]);
    const { events, error } = addon!.decode(buf);
    expect(error).toBeNull();
    expect(events).toHaveLength(3);
    expect(events[0]).toMatchObject({ mask: FAN.CREATE | FAN.ONDIR, pid: 4242, fd: -1 });
    expect(events[0]!.records).toEqual([
      {
        type: INFO.DFID_NAME,
        fsid: '1122334455667788',
        handle: `0800000001000000${DIR_HANDLE.toString('hex')}`,
        name: 'projects',
      },
    ]);
    expect(events[1]!.records.map((r) => r.type)).toEqual([INFO.DFID_NAME, INFO.FID]);
    expect(events[1]!.records[0]!.name).toBe('ünïcode name.txt');
    expect(kindsOf(events[2]!.mask)).toEqual(['overflow']);
  });

  it('reports malformed buffers instead of reading past them, keeping the events before the fault', () => {
    const good = event(FAN.DELETE, 1, [record(INFO.DFID_NAME, DIR_HANDLE, 'a')]);
    const cases: Array<[string, Buffer]> = [];
    cases.push(['truncated', Buffer.concat([good, good.subarray(0, 30)])]);
    const badVersion = Buffer.from(good);
    badVersion.writeUInt8(2, 4);
    cases.push(['version', Buffer.concat([good, badVersion])]);
    const longHandle = Buffer.from(good);
    longHandle.writeUInt32LE(4096, 24 + 12);
    cases.push(['handle', Buffer.concat([good, longHandle])]);
    const noNul = Buffer.from(good);
    noNul.fill(0x41, 24 + 20 + DIR_HANDLE.length); // the name and its padding, no NUL left
    cases.push(['name', Buffer.concat([good, noNul])]);
    const longRecord = Buffer.from(good);
    longRecord.writeUInt16LE(400, 24 + 2);
    cases.push(['record', Buffer.concat([good, longRecord])]);
    for (const [label, buf] of cases) {
      const { events, error } = addon!.decode(buf);
      expect(error, label).toMatch(/truncated|version|runs past|NUL|out of bounds/);
      expect(events[0], label).toMatchObject({ mask: FAN.DELETE, pid: 1 });
      expect(events[0]!.records[0]!.name, label).toBe('a');
    }
  });
});

describe('fanotify masks as activity kinds', () => {
  it('lists merged events in the order they happen, and overflow alone', () => {
    expect(kindsOf(FAN.CREATE | FAN.MODIFY | FAN.CLOSE_WRITE)).toEqual(['create', 'modify', 'closeWrite']);
    expect(kindsOf(FAN.RENAME | FAN.ONDIR)).toEqual(['rename']);
    expect(kindsOf(FAN.MOVED_FROM)).toEqual(['moveFrom']);
    expect(kindsOf(FAN.MOVED_TO | FAN.ONDIR)).toEqual(['moveTo']);
    expect(kindsOf(FAN.ACCESS)).toEqual(['read']);
    expect(kindsOf(FAN.Q_OVERFLOW | FAN.CREATE)).toEqual(['overflow']);
    expect(kindsOf(FAN.ONDIR)).toEqual([]);
  });
});

describe('the decoder under valgrind', () => {
  let scratch = '';
  beforeAll(() => {
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'vigil-decode-'));
  });
  afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

  it('reads recorded, built and malformed buffers with no memory error (memcheck)', (ctx) => {
    const missing = valgrindMissing();
    if (missing) ctx.skip(missing);
    const built = buildNativeDriver(scratch, 'decode-driver', 'src', [
      'tools/decode_driver.cc',
      'src/fanotify_decode.cc',
    ]);
    const driver = built.driver;
    expect(built.stderr).toBe('');
    expect(built.status).toBe(0);
    const good = event(FAN.CLOSE_WRITE, 9, [record(INFO.DFID_NAME, DIR_HANDLE, 'x'), record(INFO.FID, FILE_HANDLE)]);
    const truncated = Buffer.concat([good, good.subarray(0, good.length - 3)]);
    const noNul = Buffer.from(good);
    noNul.fill(0x41, 24 + 20 + DIR_HANDLE.length, 24 + good.readUInt16LE(26));
    const files = { good, truncated, noNul };
    const args = [RECORDED];
    for (const [name, buf] of Object.entries(files)) {
      const file = path.join(scratch, `${name}.bin`);
      fs.writeFileSync(file, buf);
      args.push(file);
    }
    const run = memcheck(driver, args);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('create-write-rename-delete.bin events=6 error=-');
    expect(run.stdout).toMatch(/good\.bin events=1 error=-/);
    expect(run.stdout).toMatch(/truncated\.bin events=1 error=event length out of bounds/);
    expect(run.stdout).toMatch(/noNul\.bin events=1 error=entry name without its NUL/);
  }, 180_000);
});
