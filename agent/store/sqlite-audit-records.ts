/**
 * The agent's own SQLite database as the audit API's record store (audit-records.ts): searches
 * and fetches through the reader (audit-reader.ts), writes through the writer thread
 * (audit-writer.ts), marks signed with the key of this agent's data folder.
 */
import type { ActivityRecord, NewActivityRecord } from '../../shared/activity-record.js';
import type { TurnQueue } from '../util/turn-queue.js';
import { compileSearch } from './audit-query.js';
import type { AuditReader } from './audit-reader.js';
import { AuditDatabaseError, type AuditRecords, type PageResult, type SearchQuery } from './audit-records.js';
import { AuditWriteFailure, type AuditWriter } from './audit-writer.js';
import type { RawRecordRow } from './raw-record.js';

export interface SqliteAuditRecordsDeps {
  reader: AuditReader;
  writer: AuditWriter;
  /** The mark key of this data folder (continuation-mark.ts). */
  markKey: Buffer;
  /** Told after each write, so the substring index takes the new records in soon. */
  written?: () => void;
}

export class SqliteAuditRecords implements AuditRecords {
  constructor(private readonly deps: SqliteAuditRecordsDeps) {}

  get turns(): TurnQueue {
    return this.deps.reader.turns;
  }

  readonly slicesInFlight = 1;

  /** Highest `seq` in the store (0 when empty). */
  maxSeq(): number {
    return this.deps.reader.maxSeq();
  }

  findPage(query: SearchQuery, after: number, count: number, cancelled: () => boolean): Promise<PageResult> {
    const compiled = compileSearch(query.conditions, {
      reference: query.reference,
      groupMembers: query.groupMembers,
    });
    return this.deps.reader.findPage(compiled, after, count, cancelled);
  }

  async slices(seqs: readonly number[], maxRecords: number, maxBytes: number): Promise<number[][]> {
    return this.deps.reader.slices(seqs, maxRecords, maxBytes);
  }

  async fetchRaw(seqs: readonly number[]): Promise<RawRecordRow[]> {
    return this.deps.reader.fetchRaw(seqs);
  }

  async fetchJson(seqs: readonly number[]): Promise<Buffer> {
    return this.deps.reader.fetchJson(seqs);
  }

  /**
   * A problem with the file is an AuditDatabaseError naming it; the writer opens the file again
   * before the next batch, so writes recover by themselves once the file is back.
   */
  async write(records: readonly NewActivityRecord[], committed: (stored: ActivityRecord[]) => void): Promise<void> {
    let stored: ActivityRecord[];
    try {
      stored = await this.deps.writer.write(records);
    } catch (error) {
      throw error instanceof AuditWriteFailure ? new AuditDatabaseError(error.message) : error;
    }
    this.deps.written?.();
    committed(stored);
  }

  async markKey(): Promise<Buffer> {
    return this.deps.markKey;
  }
}
