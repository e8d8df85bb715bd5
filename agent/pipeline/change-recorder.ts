/**
 * The self-audit hook (docs/activity-pipeline.md): every change made through the agent API, the console or
 * the CLI is reported here, and the activity pipeline turns it into an activity record with
 * DataSource `Vigil Agent`. Services take a ChangeRecorder; they never know about the store.
 */
import { DataSources, formatWhen, type NewActivityRecord } from '../../shared/activity-record.js';
import type { Logger } from '../log/logger.js';
import type { PipelineItem } from './pipeline-item.js';

export interface ChangeDetail {
  PropertyName: string;
  Before?: string;
  After?: string;
}

export interface ConfigChange {
  /** Who made the change: a client application (`client:<name>`), `console` or `cli`. */
  actor: string;
  action: 'Added' | 'Modified' | 'Removed';
  /** What kind of thing changed: `Client application`, `Audit user`, `Host`, `Output`, `Settings`, ... */
  objectType: string;
  /** Which one, as people know it: its name (or, for what has no name, a description). */
  what: string;
  /**
   * The changed resource's id, which survives renames: written as the detail `Id` so a SIEM can
   * follow one resource across changes (docs/activity-pipeline.md). Settings and monitoring, which have no
   * id of their own, use the agent's id.
   */
  id: string;
  details?: ChangeDetail[];
}

export interface ChangeRecorder {
  recordChange(change: ConfigChange): void;
}

/** Collects changes in memory; useful until the pipeline is wired, and in tests. */
export class MemoryChangeRecorder implements ChangeRecorder {
  readonly changes: ConfigChange[] = [];
  recordChange(change: ConfigChange): void {
    this.changes.push(change);
  }
}

/**
 * The recorder the agent wires in: each change becomes an activity record with DataSource
 * `Vigil Agent`, Who the actor, and the details' Before/After, written through the pipeline
 * (so it is committed, searchable and on the live feed like any other record).
 */
export class PipelineChangeRecorder implements ChangeRecorder {
  private readonly pending = new Set<Promise<unknown>>();

  constructor(
    private readonly write: (items: PipelineItem[]) => Promise<unknown>,
    private readonly hostname: string,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  recordChange(change: ConfigChange): void {
    const item = configChangeToItem(change, this.hostname, this.now());
    const written: Promise<unknown> = this.write([item])
      .catch((error: Error) => {
        this.log.error('configuration change not recorded', {
          actor: change.actor,
          objectType: change.objectType,
          what: change.what,
          error: error.message,
        });
      })
      .finally(() => this.pending.delete(written));
    this.pending.add(written);
  }

  /** Resolves when every change reported so far is committed (or failed and was logged). */
  async flush(): Promise<void> {
    await Promise.all([...this.pending]);
  }
}

/** `Id`: After for an addition, Before for a removal, both for a change. */
function idDetail(change: ConfigChange): ChangeDetail {
  if (change.action === 'Added') return { PropertyName: 'Id', After: change.id };
  if (change.action === 'Removed') return { PropertyName: 'Id', Before: change.id };
  return { PropertyName: 'Id', Before: change.id, After: change.id };
}

export function configChangeToItem(change: ConfigChange, hostname: string, timeMs: number): PipelineItem {
  const record: NewActivityRecord = {
    Who: change.actor,
    Action: change.action,
    What: change.what,
    When: formatWhen(new Date(timeMs)),
    Where: hostname,
    ObjectType: change.objectType,
    DataSource: DataSources.agent,
    Workstation: hostname,
  };
  record.DetailList = [idDetail(change), ...(change.details ?? []).map((d) => ({ ...d }))];
  return { record, timeMs };
}
