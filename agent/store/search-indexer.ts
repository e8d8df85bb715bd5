/**
 * Keeps the substring index (search-index-schema.ts) in step with the audit database: reads
 * new records in `seq` order through its own read-only connection and adds their text to the
 * index, one transaction per chunk. Synchronous; the agent runs it in a worker thread
 * (search-index-worker.ts) so indexing never takes time from requests or the ingest path.
 *
 * The index belongs to one audit database: `index_state.last_rid` must be the RID of the record
 * at `indexed_upto`. When it is not (the audit file was replaced, or emptied and its `seq`
 * restarted), the index is rebuilt. Records removed by retention are pruned from the index.
 */
import fs from 'node:fs';
import Database from 'better-sqlite3';
import { migrateSearchIndex, SEARCH_TABLE } from './search-index-schema.js';
import { ReopeningHandle } from './reopening-handle.js';
import { INDEXED_COLUMNS, indexValues, type IndexSourceRow } from './search-text.js';

export interface IndexState {
  indexed_upto: number;
  last_rid: string | null;
  pruned_below: number;
}

function removeDatabaseFiles(file: string): void {
  for (const suffix of ['', '-wal', '-shm']) fs.rmSync(file + suffix, { force: true });
}

export class SearchIndexer {
  private readonly auditHandle: ReopeningHandle<Database.Database>;
  private audit: Database.Database | null = null;
  private search: Database.Database | null = null;
  private statements: {
    read: Database.Statement;
    insert: Database.Statement;
    state: Database.Statement;
    setState: Database.Statement;
    ridAt: Database.Statement;
    minSeq: Database.Statement;
    prune: Database.Statement;
    setPruned: Database.Statement;
  } | null = null;

  constructor(readonly files: { audit: string; search: string }) {
    this.auditHandle = new ReopeningHandle({
      file: files.audit,
      open: () => new Database(files.audit, { readonly: true, fileMustExist: true, timeout: 1000 }),
      close: (db) => db.close(),
    });
  }

  private openSearch(): Database.Database {
    const open = (): Database.Database => {
      const db = new Database(this.files.search);
      try {
        db.pragma('journal_mode = WAL');
        db.pragma('synchronous = NORMAL'); // derived data: rebuilt if a crash loses the tail
        if (!migrateSearchIndex(db)) throw new Error('search index written by a newer Vigil');
        db.prepare('SELECT indexed_upto FROM index_state').get();
        return db;
      } catch (error) {
        db.close();
        throw error;
      }
    };
    try {
      return open();
    } catch {
      // Damaged, foreign or newer: it only holds derived data, so start it again.
      removeDatabaseFiles(this.files.search);
      return open();
    }
  }

  private ensureOpen(): void {
    const audit = this.auditHandle.get(); // opened again when the file was replaced
    if (audit !== this.audit) {
      this.audit = audit;
      this.statements = null;
    }
    if (!this.search) {
      this.search = this.openSearch();
      this.statements = null;
    }
    if (!this.statements) {
      const a = this.audit;
      const s = this.search;
      this.statements = {
        read: a.prepare(
          `SELECT seq, rid, who, action, what, location, object_type, data_source, plan_name, item_name,
                  workstation, details
             FROM activity_records WHERE seq > ? ORDER BY seq LIMIT ?`,
        ),
        ridAt: a.prepare('SELECT rid FROM activity_records WHERE seq = ?').pluck(),
        minSeq: a.prepare('SELECT min(seq) FROM activity_records').pluck(),
        insert: s.prepare(
          `INSERT INTO ${SEARCH_TABLE} (rowid, ${INDEXED_COLUMNS.join(', ')})
           VALUES (${['?', ...INDEXED_COLUMNS.map(() => '?')].join(', ')})`,
        ),
        state: s.prepare('SELECT indexed_upto, last_rid, pruned_below FROM index_state WHERE id = 1'),
        setState: s.prepare('UPDATE index_state SET indexed_upto = ?, last_rid = ? WHERE id = 1'),
        prune: s.prepare(`DELETE FROM ${SEARCH_TABLE} WHERE rowid >= ? AND rowid < ?`),
        setPruned: s.prepare('UPDATE index_state SET pruned_below = ? WHERE id = 1'),
      };
    }
  }

  state(): IndexState {
    this.ensureOpen();
    return this.statements!.state.get() as IndexState;
  }

  /** Drops the index content in one transaction, so readers see the old or the empty index. */
  private reset(): void {
    const s = this.search!;
    s.transaction(() => {
      s.exec(`DROP TABLE ${SEARCH_TABLE}; DROP TABLE index_state;`);
      s.pragma('user_version = 0');
      migrateSearchIndex(s);
    })();
    this.statements = null;
    this.ensureOpen();
  }

  /** Indexes up to `maxRows` more records; returns how many it added. */
  step(maxRows: number): number {
    this.ensureOpen();
    let state = this.state();
    if (state.indexed_upto > 0 && this.statements!.ridAt.get(state.indexed_upto) !== state.last_rid) {
      this.reset();
      state = this.state();
    }
    const rows = this.statements!.read.all(state.indexed_upto, maxRows) as IndexSourceRow[];
    if (rows.length === 0) return 0;
    const { insert, setState } = this.statements!;
    const last = rows[rows.length - 1]!;
    this.search!.transaction(() => {
      for (const row of rows) insert.run(indexValues(row));
      setState.run(last.seq, last.rid);
    })();
    return rows.length;
  }

  /** Removes index rows of records that retention deleted (those below the oldest `seq`). */
  prune(maxRows: number): number {
    this.ensureOpen();
    const state = this.state();
    const oldest = (this.statements!.minSeq.get() as number | null) ?? state.indexed_upto + 1;
    const below = Math.min(oldest, state.pruned_below + maxRows, state.indexed_upto + 1);
    if (below <= state.pruned_below) return 0;
    let removed = 0;
    this.search!.transaction(() => {
      removed = this.statements!.prune.run(state.pruned_below, below).changes;
      this.statements!.setPruned.run(below);
    })();
    return removed;
  }

  /** Indexes everything there is (for tools and benchmarks; the agent uses the worker). */
  catchUp(chunk = 5000): number {
    let total = 0;
    for (let n = this.step(chunk); n > 0; n = this.step(chunk)) total += n;
    return total;
  }

  private closeAudit(): void {
    this.auditHandle.reset();
    this.audit = null;
    this.statements = null;
  }

  close(): void {
    this.closeAudit();
    this.search?.close();
    this.search = null;
  }
}
