/**
 * What the audit API needs of a record store, whichever holds the records: the agent's own
 * SQLite database (sqlite-audit-records.ts) or, for a fleet member, the fleet's PostgreSQL
 * database (agent/fleet/pg-audit-records.ts). Both give the same answers to the same requests
 * (docs/audit-api.md); the conformance tests run the audit API over each.
 *
 * Records are addressed by position, a `seq` that only grows in the order records became
 * visible: pages are keyset pages on it ("the first `count` matching records with seq > after"),
 * so they never repeat or skip a record, even while records are being written.
 */
import type { ActivityRecord, NewActivityRecord } from '../../shared/activity-record.js';
import type { FilterCondition } from '../../shared/audit-filters.js';
import type { TurnQueue } from '../util/turn-queue.js';
import type { RawRecordRow } from './raw-record.js';

/** The audit database cannot be used; `message` says why, without paths or SQL. */
export class AuditDatabaseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AuditDatabaseError';
  }
}

/** The request that wanted the page is gone; nothing to answer. */
export class PageCancelled extends Error {
  constructor() {
    super('page search cancelled');
    this.name = 'PageCancelled';
  }
}

export interface PageResult {
  /** `seq` of the records of the page, ascending. */
  seqs: number[];
  /** Every record with seq ≤ through has been considered: the next page starts after it. */
  through: number;
}

/** A search as the client gave it, with what it needs from this machine resolved. */
export interface SearchQuery {
  /** Canonical conditions (audit-filters.ts); none for an enumeration. */
  conditions: readonly FilterCondition[];
  /** When the search was first run: named timeframes resolve against it. */
  reference: number;
  /** The lower-cased Who values of a local group (resolved before the search runs). */
  groupMembers: (group: string) => readonly string[];
}

export interface AuditRecords {
  /** Where page searches and page streams take turns of the event loop (turn-queue.ts). */
  readonly turns: TurnQueue;
  /**
   * How many slices of a page are fetched at once: 1 where fetching is this thread's work
   * (SQLite), 2 where another process builds them (PostgreSQL), which then builds the next slice
   * while this thread sends the last one.
   */
  readonly slicesInFlight: number;
  /** The next page of `query` after position `after`: at most `count` records. */
  findPage(query: SearchQuery, after: number, count: number, cancelled: () => boolean): Promise<PageResult>;
  /** `seqs` (ascending) in slices of at most `maxRecords` records and `maxBytes` stored bytes. */
  slices(seqs: readonly number[], maxRecords: number, maxBytes: number): Promise<number[][]>;
  /** The stored rows for `seqs` (ascending); a record gone since (retention) is left out. */
  fetchRaw(seqs: readonly number[]): Promise<RawRecordRow[]>;
  /** The JSON of the records for `seqs` (ascending), comma-separated, as UTF-8 bytes. */
  fetchJson(seqs: readonly number[]): Promise<Buffer>;
  /**
   * Stores `records` in one transaction (all or nothing). `committed` is called with them as
   * stored once they are committed in the agent's own database; the promise resolves once
   * findPage sees them. Fails with AuditDatabaseError, before storing anything when the store
   * cannot be reached.
   */
  write(records: readonly NewActivityRecord[], committed: (stored: ActivityRecord[]) => void): Promise<void>;
  /** The key continuation marks are signed with (32 bytes): every reader of the same records shares it. */
  markKey(): Promise<Buffer>;
}
