/**
 * The activity record, as the audit integration API shows it (docs/audit-api.md).
 * Field names are those of docs/audit-api.md, so existing clients read them unchanged.
 */

export interface ActivityDetail {
  PropertyName: string;
  Before?: string;
  After?: string;
  Message?: string;
}

export interface ActivityRecord {
  /** 49 characters: 17-digit UTC timestamp `yyyyMMddHHmmssfff` + 32 upper-case hex digits. */
  RID: string;
  Who: string;
  Action: string;
  What: string;
  /** UTC, `YYYY-MM-DDTHH:MM:SSZ`. */
  When: string;
  Where: string;
  ObjectType: string;
  DataSource: string;
  MonitoringPlan?: { Name: string; ID?: string };
  Item?: { Name: string };
  Workstation?: string;
  DetailList?: ActivityDetail[];
}

/** A record before the store assigns its RID; `When` may carry an offset on input. */
export type NewActivityRecord = Omit<ActivityRecord, 'RID'>;

/** Values of `DataSource` that Vigil itself writes (docs/activity-pipeline.md). */
export const DataSources = {
  fileSystem: 'File System',
  agent: 'Vigil Agent',
  api: 'Vigil API',
} as const;

/** File activity actions (docs/activity-pipeline.md). */
export const FileActions = ['Added', 'Modified', 'Removed', 'Renamed', 'Moved'] as const;
export type FileAction = (typeof FileActions)[number];

/** Formats a time as the record's `When`: UTC, whole seconds, `Z`. */
export function formatWhen(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}
