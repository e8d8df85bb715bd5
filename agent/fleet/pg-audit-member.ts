/**
 * The audit API's records for an agent that may join or leave a fleet while it runs: the fleet
 * database while the agent is a member (pg-audit-records.ts), its own SQLite store otherwise
 * (docs/audit-api.md "Fleet"). Asked on every call, so joining or leaving applies at once.
 */
import type { ActivityRecord, NewActivityRecord } from '../../shared/activity-record.js';
import type { AuditRecords, PageResult, SearchQuery } from '../store/audit-records.js';
import type { RawRecordRow } from '../store/raw-record.js';
import type { SqliteAuditRecords } from '../store/sqlite-audit-records.js';
import type { TurnQueue } from '../util/turn-queue.js';
import { PgAuditRecords, type FleetAccess, type PgAuditRecordsOptions } from './pg-audit-records.js';

export interface MemberAuditRecordsOptions extends Omit<PgAuditRecordsOptions, 'fleet' | 'local'> {
  /** The agent's own store: it serves the audit API when the agent is not a member. */
  local: SqliteAuditRecords;
  /** The agent's membership now, or null when it is not a fleet member. */
  fleet: () => FleetAccess | null;
}

export class MemberAuditRecords implements AuditRecords {
  private fleetRecords: { fleet: FleetAccess; records: PgAuditRecords } | null = null;

  constructor(private readonly options: MemberAuditRecordsOptions) {}

  get turns(): TurnQueue {
    return this.options.turns;
  }

  get slicesInFlight(): number {
    return this.current().slicesInFlight;
  }

  /** The store that serves the audit API now. */
  current(): AuditRecords {
    const fleet = this.options.fleet();
    if (fleet === null) return this.options.local;
    if (this.fleetRecords?.fleet !== fleet) {
      this.fleetRecords = { fleet, records: new PgAuditRecords({ ...this.options, fleet }) };
    }
    return this.fleetRecords.records;
  }

  findPage(query: SearchQuery, after: number, count: number, cancelled: () => boolean): Promise<PageResult> {
    return this.current().findPage(query, after, count, cancelled);
  }

  slices(seqs: readonly number[], maxRecords: number, maxBytes: number): Promise<number[][]> {
    return this.current().slices(seqs, maxRecords, maxBytes);
  }

  fetchRaw(seqs: readonly number[]): Promise<RawRecordRow[]> {
    return this.current().fetchRaw(seqs);
  }

  fetchJson(seqs: readonly number[]): Promise<Buffer> {
    return this.current().fetchJson(seqs);
  }

  write(records: readonly NewActivityRecord[], committed: (stored: ActivityRecord[]) => void): Promise<void> {
    return this.current().write(records, committed);
  }

  markKey(): Promise<Buffer> {
    return this.current().markKey();
  }
}
