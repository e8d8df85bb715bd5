/**
 * Activity at a glance (docs/console.md): records over time stacked by Action, and the top
 * actors, folders and processes of the last 24 hours or 7 days, read from the rollup tables
 * (activity-rollup-schema.ts) instead of the records.
 *
 * The records added since the last counted `seq`, whoever wrote them (the pipeline or the audit
 * API's writer thread), are counted in slices, one transaction each, yielding to the event loop
 * between slices: shortly after the pipeline commits (`soon`, small slices, so the agent's loop
 * never stalls long and a view finds little left to count) and, for what is left, when a view is
 * asked for (larger slices: someone is waiting). The batch's commit itself does no extra work.
 * Slices commit without syncing the WAL on the event loop (audit-store.ts `derivedTransaction`):
 * a power loss may undo the newest ones, and those records are counted again.
 * Records never change after insertion and `seq` is never reused (audit-store.ts keeps the
 * newest record); retention's deletions are taken out by the schema's trigger.
 */
import type { AuditStore } from './audit-store.js';
import {
  DAY_MS,
  HOUR_MS,
  QUARTER_MS,
  ROLLUP_DIMENSIONS,
  bucketOf,
  dayDimension,
  dimensionValue,
  type TopDimension,
} from './activity-rollup-schema.js';

export const STATS_RANGES = ['24h', '7d'] as const;
export type StatsRange = (typeof STATS_RANGES)[number];

/** Chart bucket width and span per range. */
export const RANGE_SHAPE: Readonly<Record<StatsRange, { bucketMs: number; spanMs: number }>> = {
  '24h': { bucketMs: QUARTER_MS, spanMs: 24 * HOUR_MS },
  '7d': { bucketMs: HOUR_MS, spanMs: 7 * 24 * HOUR_MS },
};

export const TOP_COUNT = 10;

/**
 * Text read per background slice: a 1 MB `What` costs the folder expression about 20 ms, so a
 * slice of a few such records written through the audit API would hold the loop for 100 ms and
 * more; bounded, a large record is counted in a slice of its own.
 */
const BACKGROUND_SLICE_BYTES = 256 * 1024;
export type { TopDimension };

export interface StatsBucket {
  start: number;
  /** Records per Action; actions without records are absent. */
  counts: Record<string, number>;
}

export interface TopEntry {
  value: string;
  count: number;
}

export interface ActivityStats {
  range: StatsRange;
  /** [from, to): whole hours, `to` the end of the current hour. */
  from: number;
  to: number;
  bucketMs: number;
  buckets: StatsBucket[];
  top: Record<TopDimension, TopEntry[]>;
}

export interface ActivityRollupOptions {
  /** Records counted per transaction when a view waits. */
  sliceSize?: number;
  /** Records counted per transaction in the background, after commits. */
  backgroundSliceSize?: number;
  /** How long after a commit the background count starts (commits in between share it). */
  backgroundDelayMs?: number;
  now?: () => number;
}

/** The range a view covers at `now`: it ends with the current hour, so quarters and hours align. */
export function statsWindow(range: StatsRange, now: number): { from: number; to: number } {
  const to = Math.floor(now / HOUR_MS) * HOUR_MS + HOUR_MS;
  return { from: to - RANGE_SHAPE[range].spanMs, to };
}

export class ActivityRollup {
  private readonly sliceSize: number;
  private readonly backgroundSliceSize: number;
  private readonly backgroundDelayMs: number;
  private readonly now: () => number;
  private running: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  private readonly statements: ReturnType<ActivityRollup['prepare']>;

  constructor(
    private readonly store: AuditStore,
    options: ActivityRollupOptions = {},
  ) {
    this.sliceSize = options.sliceSize ?? 20_000;
    // About 25 ms of the event loop per slice on the development machine (docs/benchmarks.md).
    this.backgroundSliceSize = options.backgroundSliceSize ?? 1_000;
    this.backgroundDelayMs = options.backgroundDelayMs ?? 1_000;
    this.now = options.now ?? Date.now;
    this.statements = this.prepare();
  }

  private prepare() {
    const db = this.store.db;
    // The slice's counts, gathered once per dimension and added to the hour and the day rows.
    const gather = ROLLUP_DIMENSIONS.map((dimension) =>
      db
        .prepare(
          `SELECT bucket, value, count(*) FROM (
             SELECT ${bucketOf(dimension)} AS bucket, ${dimensionValue(dimension)} AS value
               FROM activity_records WHERE seq > ? AND seq <= ?)
            WHERE value IS NOT NULL GROUP BY bucket, value`,
        )
        .raw(),
    );
    return {
      gather,
      add: db.prepare(`INSERT INTO activity_rollup (dimension, bucket_ms, value, count) VALUES (?, ?, ?, ?)
                       ON CONFLICT (dimension, bucket_ms, value) DO UPDATE SET count = count + excluded.count`),
      through: db.prepare('SELECT through_seq AS seq FROM activity_rollup_state WHERE id = 1').pluck(),
      // The slice's last seq: at most `count` records, and no record after the text counted so
      // far (What and the details, the values the folder and process expressions read) passed
      // `bytes`; the first record always goes, however large.
      sliceEnd: db
        .prepare(
          `SELECT max(seq) FROM (
             SELECT seq, sum(size) OVER (ORDER BY seq ROWS UNBOUNDED PRECEDING) - size AS before FROM (
               SELECT seq, length(CAST(what AS BLOB)) + coalesce(length(CAST(details AS BLOB)), 0) AS size
                 FROM activity_records WHERE seq > @through ORDER BY seq LIMIT @count))
            WHERE before < @bytes`,
        )
        .pluck(),
      setThrough: db.prepare('UPDATE activity_rollup_state SET through_seq = ? WHERE id = 1'),
      actions: db.prepare(
        `SELECT bucket_ms AS bucket, value, count FROM activity_rollup
          WHERE dimension = 'action' AND bucket_ms >= ? AND bucket_ms < ? AND count > 0`,
      ),
      // Hours at both ends of the range, whole days between: three range reads of the key.
      top: db.prepare(
        `SELECT value, sum(count) AS count FROM (
           SELECT value, count FROM activity_rollup WHERE dimension = ? AND bucket_ms >= ? AND bucket_ms < ?
           UNION ALL
           SELECT value, count FROM activity_rollup WHERE dimension = ? AND bucket_ms >= ? AND bucket_ms < ?
           UNION ALL
           SELECT value, count FROM activity_rollup WHERE dimension = ? AND bucket_ms >= ? AND bucket_ms < ?)
          GROUP BY value HAVING sum(count) > 0 ORDER BY count DESC, value LIMIT ${TOP_COUNT}`,
      ),
    };
  }

  /**
   * Counts one slice of new records; false when the rollup was already up to date. `maxBytes`
   * bounds the text a slice reads: records written through the audit API may carry megabytes.
   */
  step(sliceSize = this.sliceSize, maxBytes = Number.MAX_SAFE_INTEGER): boolean {
    const s = this.statements;
    return this.store.derivedTransaction(() => {
      const through = s.through.get() as number;
      const end = s.sliceEnd.get({ through, count: sliceSize, bytes: maxBytes }) as number | null;
      if (end === null) return false;
      ROLLUP_DIMENSIONS.forEach((dimension, i) => {
        const days = new Map<string, number>();
        for (const [bucket, value, count] of s.gather[i]!.all(through, end) as Array<[number, string, number]>) {
          s.add.run(dimension, bucket, value, count);
          if (dimension === 'action') continue;
          const key = `${bucket - (bucket % DAY_MS)}\n${value}`;
          days.set(key, (days.get(key) ?? 0) + count);
        }
        if (dimension === 'action') return;
        for (const [key, count] of days) {
          const cut = key.indexOf('\n');
          s.add.run(dayDimension(dimension), Number(key.slice(0, cut)), key.slice(cut + 1), count);
        }
      });
      s.setThrough.run(end);
      return true;
    });
  }

  /**
   * Brings the rollup up to date; concurrent callers share one run. A view that arrives during a
   * background run waits for it, which counts in small slices but has little left by then.
   */
  catchUp(sliceSize = this.sliceSize, maxBytes?: number): Promise<void> {
    if (this.running) return this.running;
    // `finally` runs after this assignment even when the first step finds nothing to do.
    const run = (async () => {
      while (!this.stopped && this.step(sliceSize, maxBytes)) await new Promise((resolve) => setImmediate(resolve));
    })().finally(() => {
      if (this.running === run) this.running = null;
    });
    this.running = run;
    return run;
  }

  /** Records were committed: count them in the background shortly (one run for a burst of commits). */
  soon(): void {
    if (this.timer || this.stopped) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      // A failure here (the database file gone) is the view's to report when one is asked for.
      this.catchUp(this.backgroundSliceSize, BACKGROUND_SLICE_BYTES).catch(() => undefined);
    }, this.backgroundDelayMs);
    this.timer.unref();
  }

  /** No more background counting; resolves when a run in progress has finished its slice. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running?.catch(() => undefined);
  }

  /** The view of `range` ending with the current hour, after catching up. */
  async stats(range: StatsRange): Promise<ActivityStats> {
    await this.catchUp();
    return this.read(range, this.now());
  }

  /** The view from the rollup as it is (no catch-up). */
  read(range: StatsRange, now: number): ActivityStats {
    const { bucketMs } = RANGE_SHAPE[range];
    const { from, to } = statsWindow(range, now);
    const buckets: StatsBucket[] = [];
    for (let start = from; start < to; start += bucketMs) buckets.push({ start, counts: {} });
    const rows = this.statements.actions.all(from, to) as Array<{ bucket: number; value: string; count: number }>;
    for (const row of rows) {
      const counts = buckets[Math.floor((row.bucket - from) / bucketMs)]!.counts;
      counts[row.value] = (counts[row.value] ?? 0) + row.count;
    }
    // Whole UTC days inside [from, to) come from the day rows, the hours around them from the
    // hour rows; a range shorter than a day reads hours only.
    const firstDay = Math.ceil(from / DAY_MS) * DAY_MS;
    const lastDay = Math.floor(to / DAY_MS) * DAY_MS;
    const days = firstDay < lastDay ? [firstDay, lastDay] : [to, to];
    const topOf = (dimension: TopDimension): TopEntry[] =>
      this.statements.top.all(
        ...[dimension, from, days[0]],
        ...[dayDimension(dimension), days[0], days[1]],
        ...[dimension, days[1], to],
      ) as TopEntry[];
    return {
      range,
      from,
      to,
      bucketMs,
      buckets,
      top: { who: topOf('who'), folder: topOf('folder'), process: topOf('process') },
    };
  }
}
