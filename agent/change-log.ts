/**
 * The self-audit hook (DESIGN.md §6): every change made through the agent API, the console or
 * the CLI is reported here, and the activity pipeline turns it into an activity record with
 * DataSource `Vigil Agent`. Services take a ChangeRecorder; they never know about the store.
 */

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
  /** Which one: its name or id. */
  what: string;
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
