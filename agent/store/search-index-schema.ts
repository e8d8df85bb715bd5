/**
 * The substring index database (`audit-search.db` beside `audit.db`). It is derived data: the
 * indexer rebuilds it from the audit database whenever it is missing, damaged, from a newer
 * Vigil, or out of step with the records. So it runs with `synchronous=NORMAL` and can be
 * deleted at any time. Why a separate file, written by a worker thread: docs/decisions.md.
 */
import type Database from 'better-sqlite3';
import { INDEXED_COLUMNS } from './search-text.js';

export const SEARCH_TABLE = 'record_text';

const MIGRATIONS: ReadonlyArray<(db: Database.Database) => void> = [
  // 1: the trigram index (contentless: only rowids come back; contentless_delete so retention
  // can drop rows) and the indexer's position. `last_rid` is the RID of the record at
  // `indexed_upto`, which proves the index belongs to this audit database.
  (db) => {
    db.exec(`
      CREATE VIRTUAL TABLE ${SEARCH_TABLE} USING fts5(
        ${INDEXED_COLUMNS.join(', ')},
        content='', contentless_delete=1, tokenize='trigram', detail=none
      );
      CREATE TABLE index_state (
        id            INTEGER PRIMARY KEY CHECK (id = 1),
        indexed_upto  INTEGER NOT NULL,
        last_rid      TEXT,
        pruned_below  INTEGER NOT NULL
      );
      INSERT INTO index_state (id, indexed_upto, last_rid, pruned_below) VALUES (1, 0, NULL, 0);
    `);
  },
];

export const SEARCH_SCHEMA_VERSION = MIGRATIONS.length;

/** Migrates; returns false when the file was written by a newer Vigil (the caller rebuilds). */
export function migrateSearchIndex(db: Database.Database): boolean {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > SEARCH_SCHEMA_VERSION) return false;
  for (let version = current; version < SEARCH_SCHEMA_VERSION; version++) {
    db.transaction(() => {
      MIGRATIONS[version]!(db);
      db.pragma(`user_version = ${version + 1}`);
    })();
  }
  return true;
}
