/**
 * The record chain computed by SQLite as the store inserts (native/src/chain/sqlite_chain.cc,
 * agent/store/chain-addon.ts `loadChainFunction`): `vigil_chain` must give exactly the chain of
 * docs/integrity.md for whatever values it is given as the store binds them, refuse what it
 * cannot write as JSON.stringify does, never continue from a stale value, and stay out of the
 * reach of a database file's triggers. A store chaining either way keeps a chain `vigil verify`
 * accepts, also after a batch given up half-way. The functions' C++ runs under valgrind too, in a
 * SQLite built into a driver (native/tools/sqlite_chain_driver.cc).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AuditStore } from '../../agent/store/audit-store.js';
import { chainAddon, loadChainFunction } from '../../agent/store/chain-addon.js';
import { CHAIN_BYTES, GENESIS, wellFormedText } from '../../agent/store/record-chain.js';
import { verifyStore } from '../../agent/integrity/verify-store.js';
import { chainDefinition } from '../helpers/chain-definition.js';
import { buildNativeDriver, memcheck, inValgrindScratch } from '../helpers/native-driver.js';
import type { NewActivityRecord } from '../../shared/activity-record.js';

const COLUMNS = Array.from({ length: 13 }, (_, c) => `column${c + 1}`).join(', ');

const text = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 80 }),
  fc.string({
    unit: fc.constantFrom('a', '"', '\\', '\n', '\u0000', '\u001f', '\u007f', '\u00e9', '\u2028', '\ud83d', '\ude00'),
    maxLength: 30,
  }),
  fc.constantFrom('', 'WS42\\alice', '/home/user/Documents/a long path past sixteen bytes.docx', '"\\"'),
);
// The numbers JavaScript can bind that JSON.stringify writes as integers.
const wholeNumber = fc.oneof(
  fc.integer({ min: -(2 ** 53) + 1, max: 2 ** 53 - 1 }),
  fc.constantFrom(0, -0, 1763632800000),
);
const row = fc.array(fc.oneof(text, wholeNumber, fc.constant(null)), { minLength: 13, maxLength: 13 });
/** 13 canonical values: the given RID, time and path, the rest fixed. */
const canonicalRow = (rid: unknown, when: unknown, what: unknown): unknown[] => [
  rid,
  when,
  'w',
  'a',
  what,
  'l',
  'o',
  'd',
  null,
  null,
  null,
  null,
  null,
];

const predecessor = fc.oneof(fc.constant(GENESIS), fc.uint8Array({ minLength: 32, maxLength: 32 }).map(Buffer.from));

describe.skipIf(chainAddon() === null)('vigil_chain: SQLite chains the values it holds', () => {
  let db: Database.Database;
  beforeAll(() => {
    db = new Database(':memory:');
    expect(loadChainFunction(db)).toBe(true);
  });
  afterAll(() => db.close());

  /** The chain values of `rows` from `previous`, as the store's INSERT computes them. */
  function chainInSql(previous: Buffer, rows: unknown[][]): Buffer {
    db.prepare('SELECT vigil_chain_from(?)').get(previous);
    if (rows.length === 0) return Buffer.alloc(0);
    const values = rows.map(() => `(${new Array<string>(13).fill('?').join(', ')})`).join(', ');
    const chains = db.prepare(`SELECT vigil_chain(${COLUMNS}) AS chain FROM (VALUES ${values})`).all(rows.flat());
    return Buffer.concat((chains as Array<{ chain: Buffer }>).map((r) => r.chain));
  }

  it('gives the definition for any values, bound as the store binds them', () => {
    fc.assert(
      fc.property(predecessor, fc.array(row, { maxLength: 40 }), (previous, rows) => {
        const bound = rows.map((values) => values.map((v) => (typeof v === 'string' ? wellFormedText(v) : v)));
        const expected = chainDefinition(previous, rows.flat(), rows.length, 13);
        const chains = chainInSql(previous, bound);
        expect(chains.length).toBe(rows.length * CHAIN_BYTES);
        expect(chains.equals(expected)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('continues from the value it gave last, statement after statement of one batch', () => {
    const rows = Array.from({ length: 70 }, (_, i) => canonicalRow(`r${i}`, i, `/x/${i}`));
    const whole = chainInSql(GENESIS, rows);
    const statement = db.prepare(
      `SELECT vigil_chain(${COLUMNS}) AS chain FROM (VALUES (${new Array<string>(13).fill('?').join(', ')}))`,
    );
    db.prepare('SELECT vigil_chain_from(?)').get(GENESIS);
    const oneByOne = Buffer.concat(rows.map((values) => (statement.get(values) as { chain: Buffer }).chain));
    expect(oneByOne.equals(whole)).toBe(true);
  });

  it('refuses values JSON.stringify would not write as an integer, a string or null', () => {
    const values = (when: unknown): unknown[] => canonicalRow('r', when, 'x');
    for (const odd of [1.5, 2 ** 53, -(2 ** 53), Infinity, 1e21]) {
      expect(() => chainInSql(GENESIS, [values(odd)]), String(odd)).toThrow(/not a whole number below 2\^53/);
    }
    expect(() => chainInSql(GENESIS, [values(Buffer.from('blob'))])).toThrow(/is a blob/);
  });

  it('never continues from a stale value: a batch must say where it starts, again after a failure', () => {
    const fresh = new Database(':memory:');
    try {
      expect(loadChainFunction(fresh)).toBe(true);
      const chain = fresh.prepare(
        `SELECT vigil_chain('r', 1, 'w', 'a', 'x', 'l', 'o', 'd', NULL, NULL, NULL, NULL, ?)`,
      );
      expect(() => chain.get(null)).toThrow(/vigil_chain_from was not called first/);
      fresh.prepare('SELECT vigil_chain_from(?)').get(GENESIS);
      expect(chain.get(null) as Record<string, Buffer>).toBeTruthy();
      expect(() => chain.get(2.5)).toThrow(/whole number/);
      expect(() => chain.get(null)).toThrow(/vigil_chain_from was not called first/);
      for (const previous of [Buffer.alloc(31), 'x'.repeat(32), null, 7]) {
        expect(() => fresh.prepare('SELECT vigil_chain_from(?)').get(previous)).toThrow(/32-byte blob/);
        expect(() => chain.get(null)).toThrow(/vigil_chain_from was not called first/);
      }
    } finally {
      fresh.close();
    }
  });

  it('cannot be called from a trigger or a view, and SQL still cannot load extensions', () => {
    db.exec(`CREATE TABLE planted (x);
             CREATE TRIGGER planted_chain AFTER INSERT ON planted BEGIN SELECT vigil_chain_from(zeroblob(32)); END;
             CREATE VIEW planted_view AS SELECT vigil_chain_from(zeroblob(32)) AS x;`);
    expect(() => db.prepare('INSERT INTO planted VALUES (1)').run()).toThrow(/unsafe use of vigil_chain_from/);
    expect(() => db.prepare('SELECT x FROM planted_view').get()).toThrow(/unsafe use of vigil_chain_from/);
    expect(() => db.prepare("SELECT load_extension('anything')").get()).toThrow(/not authorized/);
  });
});

describe('the SQL functions under valgrind', () => {
  it('chain random values and refuse the rest with no memory error or leak (memcheck)', (ctx) => {
    inValgrindScratch(ctx, 'vigil-sqlite-chain-driver-', (scratch) => {
      // SQLite itself from the amalgamation better-sqlite3 ships, built into the driver.
      const sqliteDir = path.join(
        path.dirname(createRequire(import.meta.url).resolve('better-sqlite3/package.json')),
        'deps',
        'sqlite3',
      );
      const sqlite = path.join(scratch, 'sqlite3.o');
      const compiled = spawnSync(
        'gcc',
        [
          '-c',
          '-O0',
          '-DSQLITE_THREADSAFE=0',
          '-DSQLITE_OMIT_LOAD_EXTENSION',
          path.join(sqliteDir, 'sqlite3.c'),
          '-o',
          sqlite,
        ],
        { encoding: 'utf8' },
      );
      expect(compiled.status, compiled.stderr).toBe(0);
      const built = buildNativeDriver(
        scratch,
        'sqlite-chain-driver',
        'src/chain',
        ['tools/sqlite_chain_driver.cc', 'src/chain/sqlite_chain.cc', 'src/chain/canonical_json.cc'],
        ['-DSQLITE_CORE', `-I${sqliteDir}`, sqlite, '-lcrypto', '-lm'],
      );
      if (built.status !== 0 && /openssl\/sha\.h|lcrypto/.test(built.stderr)) ctx.skip('no OpenSSL development files');
      expect(built.status, built.stderr).toBe(0);
      const run = memcheck(built.driver);
      expect(run.stderr).toBe('');
      expect(run.status).toBe(0);
      const [, chained, refused] = /^chained (\d+) refused (\d+)$/.exec(run.stdout.trim()) ?? [];
      expect(Number(chained)).toBeGreaterThan(1000);
      expect(Number(refused)).toBeGreaterThan(100);
    });
  }, 180_000);
});

describe('a store inserting batches of every size', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  });

  const record = (i: number): NewActivityRecord => ({
    Who: i % 9 === 0 ? 'WS42\\b\u00e9' : 'WS42\\alice',
    Action: 'Modified',
    What: `/home/alice/report-${i}\ud83d.docx`,
    When: new Date(Date.UTC(2026, 10, 20) + i * 10).toISOString(),
    Where: 'WS42',
    ObjectType: 'File',
    DataSource: 'File System',
    ...(i % 4 === 0 ? { MonitoringPlan: { Name: 'plan "q"', ID: 'p1' }, Item: { Name: '/home/alice' } } : {}),
    ...(i % 13 === 0 ? { DetailList: [{ PropertyName: 'Size', Before: '1\n', After: '2\ud83d' }] } : {}),
  });

  for (const chainInJavaScript of [false, true]) {
    it(`keeps one chain that verifies, across small and large batches and one given up (${chainInJavaScript ? 'JavaScript' : 'SQLite'})`, async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vigil-chain-store-'));
      dirs.push(dir);
      const file = path.join(dir, 'audit.db');
      const store = AuditStore.open({ file, synchronous: 'NORMAL', chainInJavaScript });
      let at = 0;
      for (const size of [1, 300, 31, 2500, 255, 256, 5000, 7]) {
        store.insertBatch(Array.from({ length: size }, (_, i) => record(at + i)));
        at += size;
        // A batch inserted and then given up (its transaction rolled back): the next one must
        // continue from the stored head, not from where the given-up batch left off.
        expect(() =>
          store.transaction(() => {
            store.insertInTransaction(Array.from({ length: 100 }, (_, i) => record(10_000_000 + i)));
            throw new Error('given up');
          }),
        ).toThrow('given up');
      }
      expect(store.count()).toBe(at);
      store.close();
      const checked = await verifyStore(file, null, { workers: 1 });
      expect(checked.problems).toEqual([]);
      expect(checked.records).toBe(at);
    });
  }
});
