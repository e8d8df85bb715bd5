/**
 * Activity at a glance (docs/console.md): records over time stacked by Action, and the top
 * actors, folders and processes of the last 24 hours or 7 days, read from the rollup tables
 * (activity-rollup-schema.ts) instead of the records.
 *
 * The records added since the last counted `seq`, whoever wrote them (the pipeline or the audit
 * API's writer thread), are counted in slices, one transaction each, each slice sized by the time
 * the last one took (step-size.ts) and waiting for its turn of the event loop among the searches
 * (turn-queue.ts): shortly after the pipeline commits (`soon`, 5 ms slices, so a view finds little
 * left to count) and, for what is left, when a view is asked for (25 ms slices: someone is
 * waiting, but the loop still turns; docs/architecture.md "Concurrency model"). A fixed number of
 * records per slice held the loop for 40–100 ms on a busy machine. The batch's commit itself
 * does no extra work.
 * Slices commit without syncing the WAL on the event loop (audit-store.ts `derivedTransaction`):
 * a power loss may undo the newest ones, and those records are counted again.
 * Records never change after insertion and `seq` is never reused (audit-store.ts keeps the
 * newest record); retention's deletions are taken out by the schema's trigger.
 */
import { TurnQueue } from '../util/turn-queue.js';
import type { AuditStore } from './audit-store.js';
import { StepSize } from './step-size.js';
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
 * Text per slice (What and the details): a slice's size is learnt from the records before it, so
 * a run of large records written through the audit API after small ones would overshoot its
 * time; bounded, a large record is counted in a slice of its own. The process expression reads
 * the details at about 2.3 ms a MB, the folder expression skips a long What (its length is read
 * from the row header), so 2 MiB is about 5 ms beyond the time learnt.
 */
const SLICE_BYTES = 2 * 1024 * 1024;
/** Records per slice at most, however fast they are counted. */
const MAX_SLICE = 20_000;
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
  /** Target duration of one slice when a view waits, in milliseconds. */
  viewStepMs?: number;
  /** Target duration of one slice in the background, after commits. */
  backgroundStepMs?: number;
  /** How long after a commit the background count starts (commits in between share it). */
  backgroundDelayMs?: number;
  /** The turns the agent's searches take (stores.ts); one of its own by default. */
  turns?: TurnQueue;
  now?: () => number;
}

/** The range a view covers at `now`: it ends with the current hour, so quarters and hours align. */
export function statsWindow(range: StatsRange, now: number): { from: number; to: number } {
  const to = Math.floor(now / HOUR_MS) * HOUR_MS + HOUR_MS;
  return { from: to - RANGE_SHAPE[range].spanMs, to };
}

export class ActivityRollup {
  /** Slice sizes learnt from the time slices took, kept from one run to the next. */
  private readonly viewSlices: StepSize;
  private readonly backgroundSlices: StepSize;
  private readonly backgroundDelayMs: number;
  private readonly turns: TurnQueue;
  private readonly now: () => number;
  private running: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  private readonly statements: ReturnType<ActivityRollup['prepare']>;

  constructor(
    private readonly store: AuditStore,
    options: ActivityRollupOptions = {},
  ) {
    this.viewSlices = new StepSize(options.viewStepMs ?? 25, MAX_SLICE);
    this.backgroundSlices = new StepSize(options.backgroundStepMs ?? 5, MAX_SLICE);
    this.backgroundDelayMs = options.backgroundDelayMs ?? 1_000;
    this.turns = options.turns ?? new TurnQueue();
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
      sliceEnd: db.prepare(
        `SELECT max(seq) AS end, count(*) AS records FROM (
             SELECT seq, sum(size) OVER (ORDER BY seq ROWS UNBOUNDED PRECEDING) - size AS before FROM (
               SELECT seq, octet_length(what) + coalesce(octet_length(details), 0) AS size
                 FROM activity_records WHERE seq > @through ORDER BY seq LIMIT @count))
            WHERE before < @bytes`,
      ),
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
   * Counts one slice of at most `sliceSize` new records; how many it counted, 0 when the rollup
   * was already up to date. `maxBytes` bounds the text a slice reads: records written through the
   * audit API may carry megabytes.
   */
  step(sliceSize: number, maxBytes = SLICE_BYTES): number {
    const s = this.statements;
    return this.store.derivedTransaction(() => {
      const through = s.through.get() as number;
      const { end, records } = s.sliceEnd.get({ through, count: sliceSize, bytes: maxBytes }) as {
        end: number | null;
        records: number;
      };
      if (end === null) return 0;
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
      return records;
    });
  }

  /**
   * Brings the rollup up to date; concurrent callers share one run. A view that arrives during a
   * background run waits for it, which counts in small slices but has little left by then.
   */
  catchUp(size: StepSize = this.viewSlices): Promise<void> {
    if (this.running) return this.running;
    // `finally` runs after this assignment even when the first step finds nothing to do.
    const run = (async () => {
      for (;;) {
        await this.turns.turn();
        if (this.stopped) return;
        const started = performance.now();
        const counted = this.step(size.current);
        if (counted === 0) return;
        size.learn(counted, performance.now() - started);
      }
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
      this.catchUp(this.backgroundSlices).catch(() => undefined);
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
