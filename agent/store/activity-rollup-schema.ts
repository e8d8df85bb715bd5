/**
 * The activity rollup's tables (docs/console.md "Activity at a glance"): record counts per time
 * bucket and value, so the console's charts read at most buckets × values rows instead of
 * scanning records.
 *
 * - activity_rollup: `dimension` `action` counts per 15-minute bucket; `who`, `folder` and
 *   `process` counts per hour, and again per UTC day as `who-day`, `folder-day`, `process-day`
 *   (a 7-day view reads whole days and the hours at its two ends). `bucket_ms` is the bucket's
 *   start (UTC milliseconds).
 * - activity_rollup_state: every record with `seq` ≤ `through_seq` is counted.
 * - A trigger takes a deleted record (retention) back out of the counts, if it was counted.
 *
 * The value expressions are shared by the trigger and the catch-up (activity-rollup.ts), so a
 * record is added and taken out under the same values. Changing one needs a new migration that
 * recreates the trigger and the rollup.
 */
import type Database from 'better-sqlite3';

export const QUARTER_MS = 900_000;
export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;
export const ROLLUP_DIMENSIONS = ['action', 'who', 'folder', 'process'] as const;
export type RollupDimension = (typeof ROLLUP_DIMENSIONS)[number];

/** Bucket width per dimension: the action chart needs quarters, the top lists hours. */
export const BUCKET_MS: Readonly<Record<RollupDimension, number>> = {
  action: QUARTER_MS,
  who: HOUR_MS,
  folder: HOUR_MS,
  process: HOUR_MS,
};

/** The dimensions of the top lists, each also kept per day under `<dimension>-day`. */
export const TOP_DIMENSIONS = ['who', 'folder', 'process'] as const;
export type TopDimension = (typeof TOP_DIMENSIONS)[number];
export const dayDimension = (dimension: TopDimension): string => `${dimension}-day`;

/**
 * Longest `What` whose folder is counted, in UTF-8 bytes: 4,096 characters of up to four bytes
 * (a Linux path has at most 4,096 bytes). Longer values, which only the audit API can write,
 * count no folder.
 */
export const FOLDER_WHAT_BYTES = 16_384;
/** The characters of a path's end that may form its last component (a file name: 255 at most). */
export const NAME_CHARS = 255;

/**
 * The parent folder of a file or folder record's `What`, for either separator: rtrim drops the
 * trailing characters that are not separators, then the separator itself goes (a root such as
 * `/` or `C:\` stays). NULL for other records, for a `What` without a separator, and where the
 * last component is longer than NAME_CHARS or the `What` longer than FOLDER_WHAT_BYTES.
 *
 * rtrim's cost is the characters it drops times the size of its set. The set is the last
 * NAME_CHARS characters without separators, not the whole `What`: with the whole value, one
 * record of 80,000 distinct characters held the event loop for 3.8 s (docs/security.md "The
 * rollup's folder expression"). A set that misses a character of a long last component stops
 * rtrim early, on a character that is not a separator: that result is not a folder (NULL).
 */
function folderOf(row: string): string {
  const what = `${row}what`;
  // The upTo value is computed once per record (a scalar subquery), not once per use.
  return `(SELECT CASE WHEN up = '' OR substr(up, -1) NOT IN ('/', '\\') THEN NULL
                       WHEN length(up) > 1 AND substr(up, -2, 1) <> ':' THEN substr(up, 1, length(up) - 1)
                       ELSE up END
             FROM (SELECT rtrim(${what}, replace(replace(substr(${what}, -${NAME_CHARS}), '/', ''), '\\', '')) AS up)
            WHERE ${row}object_type IN ('File', 'Folder') AND octet_length(${what}) <= ${FOLDER_WHAT_BYTES})`;
}

/** The `Message` of the record's `Process` detail (docs/attribution.md), or NULL. */
function processOf(row: string): string {
  const details = `${row}details`;
  return `CASE WHEN ${details} LIKE '%"Process"%' AND json_valid(${details}) THEN
            (SELECT json_extract(d.value, '$.Message') FROM json_each(${details}) AS d
              WHERE json_extract(d.value, '$.PropertyName') = 'Process' LIMIT 1) END`;
}

/** The SQL value of a dimension for a record row; `row` is a prefix such as `old.` or ``. */
export function dimensionValue(dimension: RollupDimension, row = ''): string {
  switch (dimension) {
    case 'action':
      return `${row}action`;
    case 'who':
      return `${row}who`;
    case 'folder':
      return folderOf(row);
    case 'process':
      return processOf(row);
  }
}

export function bucketOf(dimension: RollupDimension, row = ''): string {
  const width = BUCKET_MS[dimension];
  return `(${row}when_ms - (${row}when_ms % ${width}))`;
}

/** The migration: tables, state and the retention trigger. */
export function createActivityRollup(db: Database.Database): void {
  createRollupTables(db);
  createForgetTrigger(db);
}

/**
 * The migration that changed a value expression (the folder's, bounded): the trigger again with
 * the new expressions, and every record counted again under them, in the background as after a
 * commit (activity-rollup.ts). The counts are derived data; a view meanwhile shows fewer records.
 */
export function recountActivityRollup(db: Database.Database): void {
  db.exec(`
    DROP TRIGGER activity_rollup_forget;
    DELETE FROM activity_rollup;
    UPDATE activity_rollup_state SET through_seq = 0 WHERE id = 1;
  `);
  createForgetTrigger(db);
}

function createRollupTables(db: Database.Database): void {
  db.exec(`
    CREATE TABLE activity_rollup (
      dimension  TEXT    NOT NULL,
      bucket_ms  INTEGER NOT NULL,
      value      TEXT    NOT NULL,
      count      INTEGER NOT NULL,
      PRIMARY KEY (dimension, bucket_ms, value)
    ) WITHOUT ROWID;
    CREATE TABLE activity_rollup_state (
      id          INTEGER PRIMARY KEY CHECK (id = 1),
      through_seq INTEGER NOT NULL
    );
    INSERT INTO activity_rollup_state (id, through_seq) VALUES (1, 0);
  `);
}

function createForgetTrigger(db: Database.Database): void {
  const forget = ROLLUP_DIMENSIONS.map(
    (dimension) => `
      UPDATE activity_rollup SET count = count - 1
       WHERE dimension = '${dimension}' AND bucket_ms = ${bucketOf(dimension, 'old.')}
         AND value = ${dimensionValue(dimension, 'old.')};
      DELETE FROM activity_rollup
       WHERE dimension = '${dimension}' AND bucket_ms = ${bucketOf(dimension, 'old.')}
         AND value = ${dimensionValue(dimension, 'old.')} AND count <= 0;`,
  ).join('');
  const forgetDays = TOP_DIMENSIONS.map(
    (dimension) => `
      UPDATE activity_rollup SET count = count - 1
       WHERE dimension = '${dayDimension(dimension)}' AND bucket_ms = (old.when_ms - (old.when_ms % ${DAY_MS}))
         AND value = ${dimensionValue(dimension, 'old.')};
      DELETE FROM activity_rollup
       WHERE dimension = '${dayDimension(dimension)}' AND bucket_ms = (old.when_ms - (old.when_ms % ${DAY_MS}))
         AND value = ${dimensionValue(dimension, 'old.')} AND count <= 0;`,
  ).join('');
  db.exec(`
    CREATE TRIGGER activity_rollup_forget AFTER DELETE ON activity_records
      WHEN old.seq <= (SELECT through_seq FROM activity_rollup_state WHERE id = 1)
    BEGIN ${forget}${forgetDays}
    END;
  `);
}
