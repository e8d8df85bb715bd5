/**
 * The audit database schema and its migrations, applied in order and recorded in
 * `PRAGMA user_version`. A migration never edits an earlier one: add a new entry instead.
 */
import type Database from 'better-sqlite3';
import { CANONICAL_COLUMNS, GENESIS, canonicalRecord, nextChain, rowValues } from './record-chain.js';
import type { CanonicalRow } from './record-chain.js';
import { createActivityRollup, recountActivityRollup } from './activity-rollup-schema.js';

export type Migration = (db: Database.Database) => void;

export const MIGRATIONS: readonly Migration[] = [
  // 1: one table of activity records. `seq` is the insertion order: paging walks it, so pages
  // never skip or repeat a record while new ones are written behind the cursor.
  (db) => {
    db.exec(`
      CREATE TABLE activity_records (
        seq          INTEGER PRIMARY KEY,
        rid          TEXT    NOT NULL UNIQUE,
        when_ms      INTEGER NOT NULL,
        who          TEXT    NOT NULL,
        action       TEXT    NOT NULL,
        what         TEXT    NOT NULL,
        location     TEXT    NOT NULL,
        object_type  TEXT    NOT NULL,
        data_source  TEXT    NOT NULL,
        plan_name    TEXT,
        plan_id      TEXT,
        item_name    TEXT,
        workstation  TEXT,
        details      TEXT
      );
      CREATE INDEX activity_records_when ON activity_records (when_ms);
    `);
  },
  // 2: the state the activity pipeline commits together with the records it produces, so that
  // after a crash the store, the file snapshot and the log files agree (docs/activity-pipeline.md).
  // - monitor_snapshot: every file and folder a host watches (path, inode, size, mtime), the
  //   baseline the start-up scan compares with to report what changed while the agent was down.
  // - monitor_coverage: the include/exclude paths each host's snapshot was taken with.
  // - output_positions: how far each log file output has written, committed with the records.
  (db) => {
    db.exec(`
      CREATE TABLE monitor_snapshot (
        host_id   TEXT    NOT NULL,
        path      TEXT    NOT NULL,
        is_dir    INTEGER NOT NULL,
        dev       INTEGER NOT NULL,
        ino       INTEGER NOT NULL,
        size      INTEGER NOT NULL,
        mtime_ms  REAL    NOT NULL,
        birth_ms  REAL    NOT NULL,
        PRIMARY KEY (host_id, path)
      ) WITHOUT ROWID;
      CREATE TABLE monitor_coverage (
        host_id   TEXT PRIMARY KEY,
        coverage  TEXT    NOT NULL
      ) WITHOUT ROWID;
      CREATE TABLE output_positions (
        output_id TEXT PRIMARY KEY,
        file      TEXT    NOT NULL,
        offset    INTEGER NOT NULL
      ) WITHOUT ROWID;
    `);
  },
  // 3: tamper evidence (docs/integrity.md).
  // - activity_records.chain: the hash chain over the records in seq order; the records already
  //   stored are chained here, once.
  // - chain_checkpoints: signed statements about the chain: `head` (the chain at record `seq`,
  //   hourly and at shutdown) and `retention` (records before `seq` were deleted by retention;
  //   `chain` is the deleted predecessor's chain value).
  (db) => {
    db.exec(`
      ALTER TABLE activity_records ADD COLUMN chain BLOB;
      CREATE TABLE chain_checkpoints (
        id         INTEGER PRIMARY KEY,
        kind       TEXT    NOT NULL,
        seq        INTEGER NOT NULL,
        chain      BLOB    NOT NULL,
        time_ms    INTEGER NOT NULL,
        signature  BLOB    NOT NULL
      );
    `);
    const update = db.prepare('UPDATE activity_records SET chain = ? WHERE seq = ?');
    let chain: Buffer = GENESIS;
    const rows = db.prepare(`SELECT seq, ${CANONICAL_COLUMNS} FROM activity_records ORDER BY seq`);
    const chained: Array<[Buffer, number]> = [];
    for (const row of rows.iterate() as IterableIterator<CanonicalRow & { seq: number }>) {
      chain = nextChain(chain, canonicalRecord(rowValues(row)));
      chained.push([chain, row.seq]);
    }
    for (const [value, seq] of chained) update.run(value, seq);
  },
  // 4: directory monitoring (docs/directory.md): per domain, where reading stopped (the accesslog
  // cursor, or the snapshot of every object where there is no log), committed with the records.
  (db) => {
    db.exec(`
      CREATE TABLE directory_cursor (
        domain_id  TEXT PRIMARY KEY,
        scope      TEXT NOT NULL,
        mode       TEXT NOT NULL,
        cursor     TEXT NOT NULL
      ) WITHOUT ROWID;
      CREATE TABLE directory_snapshot (
        domain_id  TEXT NOT NULL,
        entry_key  TEXT NOT NULL,
        dn         TEXT NOT NULL,
        version    TEXT NOT NULL,
        attributes TEXT NOT NULL,
        PRIMARY KEY (domain_id, entry_key)
      ) WITHOUT ROWID;
    `);
  },
  // 5: fleet forwarding (docs/fleet.md): per fleet database, the last local `seq` forwarded to it,
  // committed only after PostgreSQL committed the records up to it.
  (db) => {
    db.exec(`
      CREATE TABLE fleet_forward_cursor (
        database  TEXT    PRIMARY KEY,
        last_seq  INTEGER NOT NULL
      ) WITHOUT ROWID;
    `);
  },
  // 6: the activity rollup: record counts per time bucket for the console's charts
  // (activity-rollup-schema.ts, docs/console.md).
  (db) => createActivityRollup(db),
  // 7: the rollup's folder expression bounded in cost (a long `What` had rtrim run for seconds):
  // the trigger with the new expression, and the counts taken again (activity-rollup-schema.ts).
  (db) => recountActivityRollup(db),
];

export const SCHEMA_VERSION = MIGRATIONS.length;

/** Brings the database to SCHEMA_VERSION; refuses a database written by a newer Vigil. */
export function migrate(db: Database.Database, file: string): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > SCHEMA_VERSION) {
    throw new Error(
      `audit database ${file} has schema version ${current}, newer than this Vigil understands (${SCHEMA_VERSION})`,
    );
  }
  for (let version = current; version < SCHEMA_VERSION; version++) {
    db.transaction(() => {
      MIGRATIONS[version]!(db);
      db.pragma(`user_version = ${version + 1}`);
    })();
  }
}
