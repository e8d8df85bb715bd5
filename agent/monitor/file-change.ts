/**
 * Normalisation: a change the watcher or a scan found becomes an activity record in the shape
 * of docs/activity-pipeline.md (What the full path, Who the agent's account or, from an
 * attributing source, the actor (docs/attribution.md), DataSource `File System`, MonitoringPlan
 * the host, Item the monitored folder it happened under).
 */
import { DataSources, formatWhen, type ActivityDetail, type FileAction } from '../../shared/activity-record.js';
import type { FileActivity, PipelineItem } from '../pipeline/pipeline-item.js';
import { UNKNOWN_ACTOR, type Actor } from './actor.js';
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
  /**
   * From an attributing source: who acted, or null when nobody can be named (found by a scan,
   * or the process could not be resolved). Absent from the watcher: Who is the agent's account.
   */
  actor?: Actor | null;
}

export interface MonitoredHost {
  id: string;
  host: string;
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
  const actor = change.actor;
  if (actor) (details ??= []).push(...actorDetails(actor));
  // Built as literals with optional fields added after: a spread inside a literal sends V8
  // (Node 20) down a slow copying path that costs more than the rest of this function.
  const record: PipelineItem['record'] = {
    Who: actor === undefined ? account.who : (actor?.who ?? UNKNOWN_ACTOR),
    Action: change.action,
    What: what,
    When: whenOf(change.timeMs),
    Where: account.hostname,
    ObjectType: change.dir ? 'Folder' : 'File',
    DataSource: DataSources.fileSystem,
    MonitoringPlan: { Name: host.host, ID: host.id },
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
  if (actor !== undefined) file.uid = actor?.uid ?? null;
  if (actor?.exe) file.process = actor.exe;
  const item: PipelineItem = { record, timeMs: change.timeMs, hostId: host.id, file };
  return item;
}

/** Process, Process ID and, after sudo or su, Login user (docs/attribution.md). */
export function actorDetails(actor: Actor): ActivityDetail[] {
  const out: ActivityDetail[] = [];
  if (actor.exe) out.push({ PropertyName: 'Process', Message: actor.exe });
  out.push({ PropertyName: 'Process ID', Message: String(actor.pid) });
  if (actor.loginWho && actor.loginWho !== actor.who) out.push({ PropertyName: 'Login user', Message: actor.loginWho });
  return out;
}
