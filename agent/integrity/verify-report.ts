/** The report `vigil verify` prints (docs/integrity.md). */
export type ProblemKind = 'changed' | 'removed' | 'inserted' | 'reordered' | 'truncated' | 'signature';

export interface Problem {
  /** A log file's name, or the audit database's file name for database problems without a record. */
  file?: string;
  /** The record concerned (database problems). */
  rid?: string;
  /** A log file's line (from 1), or a record's `seq` in the database. */
  line?: number;
  kind: ProblemKind;
  detail: string;
}

/** A stretch found intact: records by `seq` in the database, lines in a log file. */
export interface VerifiedRange {
  file: string;
  from: number;
  to: number;
}

export interface VerifyReport {
  ok: boolean;
  verified: VerifiedRange[];
  problems: Problem[];
}
