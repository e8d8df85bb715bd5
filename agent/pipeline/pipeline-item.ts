/**
 * What flows through the pipeline: a normalised activity record plus what the outputs need and
 * the record does not carry (the time in milliseconds, the host, the file operation).
 */
import type { ActivityRecord, FileAction, NewActivityRecord } from '../../shared/activity-record.js';

export interface FileActivity {
  /** `Read` only from an attributing source with `monitorReads` on (docs/attribution.md). */
  operation: FileAction | 'Read';
  objectType: 'File' | 'Folder';
  /** The path; for Renamed and Moved, the path before. */
  path: string;
  /** For Renamed and Moved: the path after. */
  newPath?: string;
  /** From an attributing source, the acting uid (null: unknown): the log files' User ID. */
  uid?: number | null;
  /** The acting executable, when known: the log files' Process or IP. */
  process?: string;
}

export interface PipelineItem {
  record: NewActivityRecord;
  /** When the change was seen, in milliseconds (log lines keep them; `When` keeps seconds). */
  timeMs: number;
  /** The host whose outputs receive the record; none for self-audit and API records. */
  hostId?: string;
  /** The directory domain whose outputs receive the record (docs/directory.md). */
  domainId?: string;
  file?: FileActivity;
  /** An agent notice (a fired alert: docs/alerts.md) that every syslog output receives. */
  broadcast?: boolean;
}

export interface StoredItem extends PipelineItem {
  stored: ActivityRecord;
}

/** Records submitted together, plus state that must commit with them or not at all. */
export interface Submission {
  items: PipelineItem[];
  /** Runs inside the batch transaction, after the records are inserted. */
  commitWith?: () => void;
}
