/**
 * The audit database schema and its migrations, applied in order and recorded in
 * `PRAGMA user_version`. A migration never edits an earlier one: add a new entry instead.
 */
import type Database from 'better-sqlite3';

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
