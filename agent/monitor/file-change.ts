/**
 * Normalisation: a change the watcher or a scan found becomes an activity record in the shape
 * of DESIGN.md §6 (What the full path, Who the agent's account, DataSource `File System`,
 * MonitoringPlan the host, Item the monitored folder it happened under).
 */
import { DataSources, formatWhen, type ActivityDetail, type FileAction } from '../../shared/activity-record.js';
import type { FileActivity, PipelineItem } from '../pipeline/pipeline-item.js';
import type { LocalAccount } from './local-account.js';

export interface FileChange {
  action: FileAction;
  dir: boolean;
  /** The path; for Renamed and Moved, the path before. */
  path: string;
  /** For Renamed and Moved: the path after. */
  newPath?: string;
  timeMs: number;
  /** The monitored (include) folder the path is under. */
  root: string;
  /** Found by comparing a folder scan with the snapshot, not reported by the watcher. */
  byScan?: boolean;
  sizeBefore?: number;
  sizeAfter?: number;
}

export interface MonitoredHost {
  id: string;
  name: string;
}

export const SCAN_MESSAGE =
  'Found by a folder scan: the change happened while the watcher was not running or lost track';

let lastSecond = Number.NaN;
let lastWhen = '';

/** `When` for a time; a burst shares the second, so the string is reused. */
function whenOf(timeMs: number): string {
  const second = Math.floor(timeMs / 1000);
  if (second !== lastSecond) {
    lastSecond = second;
    lastWhen = formatWhen(new Date(second * 1000));
  }
  return lastWhen;
}

export function fileChangeToItem(change: FileChange, host: MonitoredHost, account: LocalAccount): PipelineItem {
  let details: ActivityDetail[] | undefined;
  const what = change.newPath ?? change.path;
  if (change.newPath !== undefined) {
    (details ??= []).push({ PropertyName: 'Path', Before: change.path, After: change.newPath });
  }
  if (change.action === 'Modified' && change.sizeBefore !== change.sizeAfter) {
    (details ??= []).push({ PropertyName: 'Size', Before: String(change.sizeBefore), After: String(change.sizeAfter) });
  }
  if (change.byScan) (details ??= []).push({ PropertyName: 'Detection', Message: SCAN_MESSAGE });
  // Built as literals with optional fields added after: a spread inside a literal sends V8
  // (Node 20) down a slow copying path that costs more than the rest of this function.
  const record: PipelineItem['record'] = {
    Who: account.who,
    Action: change.action,
    What: what,
    When: whenOf(change.timeMs),
    Where: account.hostname,
    ObjectType: change.dir ? 'Folder' : 'File',
    DataSource: DataSources.fileSystem,
    MonitoringPlan: { Name: host.name, ID: host.id },
    Item: { Name: change.root },
    Workstation: account.hostname,
  };
  if (details !== undefined) record.DetailList = details;
  const file: FileActivity = {
    operation: change.action,
    objectType: change.dir ? 'Folder' : 'File',
    path: change.path,
  };
  if (change.newPath !== undefined) file.newPath = change.newPath;
  const item: PipelineItem = { record, timeMs: change.timeMs, hostId: host.id, file };
  return item;
}
