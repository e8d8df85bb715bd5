/**
 * What every source of activity records implements: the file watcher of one host
 * (file-activity-source.ts) today; an actor-aware Linux fanotify source and a directory (LDAP)
 * source next (docs/activity-pipeline.md, "Sources"). MonitorService runs one per enabled host
 * through this interface only.
 *
 * A source guarantees:
 * - **Records go through the pipeline, and count once committed.** A source hands its records
 *   to `Pipeline.submit` together with the state that describes them (its snapshot, its
 *   cursor) as the submission's `commitWith`, so both commit in one transaction or neither does.
 *   Outputs and the live feed receive them only after COMMIT.
 * - **Changes while stopped are found at start.** `start` compares what the source committed
 *   last time with what is there now and records the difference, so stopping (a restart, a
 *   pause, a crash) leaves no gap and, after a crash, no duplicate.
 * - **Rescans are hints.** `rescan` (a timer, a watcher error, a kernel queue overflow) asks the
 *   source to reconcile with what is there now; what it finds is recorded like any other change,
 *   marked as found by a scan, and never reported twice.
 * - **An accepted record is never lost.** Once a source has seen a change it keeps it until the
 *   pipeline committed its record; if a commit fails the source reconciles again rather than
 *   dropping what it saw, and counts and reports what it could not store.
 */

/** Whether a source names who acted: the host resource's `attribution` (docs/activity-pipeline.md). */
export type Attribution = 'process' | 'none';

/** Counters every source keeps; a source may add its own (overflows, unattributed records…). */
export interface SourceCounters {
  /** Records handed to the pipeline. */
  recordsSubmitted: number;
  /** Full reconciliations (start-up not counted). */
  fullScans: number;
  /** Changes the live events missed and a listing found. */
  recoveredByListing: number;
  readonly [name: string]: number;
}

export interface ActivitySourceStatus {
  attribution: Attribution;
  /** Why `attribution` is `none`, for the host resource (e.g. "needs CAP_SYS_ADMIN"). */
  attributionReason?: string;
  counters: Readonly<SourceCounters>;
}

export interface ActivitySource {
  /** The host (monitoring plan) whose records this source produces. */
  readonly hostId: string;
  /** Records what changed since the last committed state, then follows live changes. */
  start(): Promise<void>;
  /** Stops following changes and resolves once what was already seen is committed. */
  stop(): Promise<void>;
  /** A hint to reconcile with what is there now; resolves once its records are committed. */
  rescan(): Promise<void>;
  /** Resolves once every change seen so far is committed (tests, benchmarks, shutdown). */
  settle(): Promise<void>;
  status(): ActivitySourceStatus;
}
