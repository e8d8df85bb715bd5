/**
 * What the audit endpoints do, without HTTP: run a page of a search (and issue its mark),
 * continue a mark, write records. The Koa app (audit-app.ts) parses requests into these calls
 * and shapes their results.
 */
import type { ActivityRecord, NewActivityRecord } from '../../shared/activity-record.js';
import { canonicalConditions, sameConditions, type FilterCondition } from '../../shared/audit-filters.js';
import { compileSearch } from '../store/audit-query.js';
import type { AuditReader } from '../store/audit-reader.js';
import type { AuditRecords } from '../store/audit-records.js';
import { GroupsUnsupportedError, type GroupResolver } from '../platform/local-groups.js';
import { ErrorCodes, inputError } from './audit-errors.js';
import { InvalidMarkError, MarkCodec, type MarkPayload } from './continuation-mark.js';

export interface AuditServiceDeps {
  /**
   * The records the audit API serves: this agent's SQLite database, or the fleet's database
   * for a fleet member (store/audit-records.ts).
   */
  records: AuditRecords;
  /** This agent's own database, for the console's newest-first activity search. */
  reader: AuditReader;
  groups: GroupResolver;
  /**
   * After COMMIT of records written here: the pipeline's after-commit path (live feed, outputs
   * that take them), so every record reaches its readers the same way whatever its source.
   */
  committed?: (records: readonly ActivityRecord[]) => void;
  now?: () => number;
}

export interface PageOutcome {
  seqs: number[];
  mark: string;
  /** Where the next page starts (what `mark` encodes). */
  next: MarkPayload;
}

export class AuditService {
  private codec: { key: Buffer; codec: MarkCodec } | null = null;

  constructor(private readonly deps: AuditServiceDeps) {}

  /** The codec of the records' mark key; the store says which key (it never changes while it runs). */
  private async marks(): Promise<MarkCodec> {
    const key = await this.deps.records.markKey();
    if (this.codec === null || !this.codec.key.equals(key)) this.codec = { key, codec: new MarkCodec(key) };
    return this.codec.codec;
  }

  /** A new search (or enumeration, with no conditions) from its first page. */
  start(conditions: readonly FilterCondition[]): MarkPayload {
    return { conditions: canonicalConditions(conditions), reference: this.deps.now?.() ?? Date.now(), after: 0 };
  }

  /** Reads a client's mark; a forged, edited or foreign one is an InputError. */
  async resume(mark: string, location: string): Promise<MarkPayload> {
    const marks = await this.marks();
    try {
      return marks.decode(mark);
    } catch (error) {
      if (error instanceof InvalidMarkError) {
        throw inputError(ErrorCodes.invalidMark, `Invalid ContinuationMark: ${error.message}`, location);
      }
      throw error;
    }
  }

  /** A search request that carries both a mark and a FilterList must repeat the mark's search. */
  checkSameSearch(position: MarkPayload, conditions: readonly FilterCondition[], location: string): void {
    if (!sameConditions(position.conditions, conditions)) {
      throw inputError(
        ErrorCodes.invalidMark,
        'the ContinuationMark belongs to a different FilterList; send the FilterList it was issued for, or none',
        location,
      );
    }
  }

  private async groupMembers(conditions: readonly FilterCondition[]): Promise<Map<string, string[]>> {
    const members = new Map<string, string[]>();
    for (const c of conditions) {
      if (c.filter !== 'Who' || (c.operator !== 'InGroup' && c.operator !== 'NotInGroup') || members.has(c.value))
        continue;
      let list: string[] | null;
      try {
        list = await this.deps.groups.members(c.value);
      } catch (error) {
        if (error instanceof GroupsUnsupportedError) {
          throw inputError(
            ErrorCodes.invalidArgument,
            `Who ${c.operator}: ${error.message}`,
            '/ActivityRecordSearch/FilterList/Who',
          );
        }
        throw error;
      }
      if (list === null) {
        throw inputError(
          ErrorCodes.invalidArgument,
          `Who ${c.operator}: "${c.value}" is not a local group of this machine`,
          '/ActivityRecordSearch/FilterList/Who',
        );
      }
      members.set(c.value, list);
    }
    return members;
  }

  /** Finds the next page; its mark continues after it (also when it is empty: for records written later). */
  async page(position: MarkPayload, count: number, cancelled: () => boolean): Promise<PageOutcome> {
    const members = await this.groupMembers(position.conditions);
    const marks = await this.marks();
    const query = {
      conditions: position.conditions,
      reference: position.reference,
      groupMembers: (group: string) => members.get(group) ?? [],
    };
    const found = await this.deps.records.findPage(query, position.after, count, cancelled);
    const next = { ...position, after: found.through };
    return { seqs: found.seqs, mark: marks.encode(next), next };
  }

  /**
   * A newest-first page (the console's activity search): records matching `conditions` with
   * seq < `before`. `reference` is when the search was first run (timeframes resolve against it).
   * `next` is the `before` of the following page, or null when there are no older records.
   */
  async pageBefore(
    conditions: readonly FilterCondition[],
    reference: number,
    before: number,
    count: number,
    cancelled: () => boolean,
  ): Promise<{ seqs: number[]; next: number | null }> {
    const members = await this.groupMembers(conditions);
    const compiled = compileSearch(canonicalConditions(conditions), {
      reference,
      groupMembers: (group) => members.get(group) ?? [],
    });
    const found = await this.deps.reader.findPageBefore(compiled, before, count, cancelled);
    return { seqs: found.seqs, next: found.through > 0 ? found.through : null };
  }

  /**
   * Stores the records in one transaction (all or nothing) and resolves once a search sees them
   * (store/audit-records.ts). Once committed in this agent's database, the records go to
   * `committed` (the live feed), like the pipeline's. A store that cannot be reached is an
   * AuditDatabaseError, which the API answers with a ServerError.
   */
  async write(records: readonly NewActivityRecord[]): Promise<void> {
    await this.deps.records.write(records, (stored) => this.deps.committed?.(stored));
  }
}
