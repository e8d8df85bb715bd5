/**
 * Log file names (docs/activity-pipeline.md): `<name>_Log_YYYYMMDD.tsv` or `.json`, one
 * file per UTC day, and `.zip` added when a closed file is compressed. The name is also the
 * file's id in the agent API, so it must never carry a path.
 */

export type LogFormat = 'Tsv' | 'Json';

export interface LogFileName {
  fileName: string;
  base: string;
  /** `YYYYMMDD` (UTC). */
  day: string;
  format: LogFormat;
  zipped: boolean;
}

const NAME = /^([A-Za-z0-9._-]{1,100})_Log_(\d{8})\.(tsv|json)(\.zip)?$/;

export function parseLogFileName(fileName: string): LogFileName | null {
  const match = NAME.exec(fileName);
  if (!match) return null;
  return {
    fileName,
    base: match[1]!,
    day: match[2]!,
    format: match[3] === 'tsv' ? 'Tsv' : 'Json',
    zipped: match[4] !== undefined,
  };
}

export function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10).replace(/-/g, '');
}

export function logFileName(base: string, day: string, format: LogFormat): string {
  return `${base}_Log_${day}.${format === 'Tsv' ? 'tsv' : 'json'}`;
}

/** The UTC day `days` before `day` (both `YYYYMMDD`). */
export function dayMinus(day: string, days: number): string {
  const ms = Date.UTC(Number(day.slice(0, 4)), Number(day.slice(4, 6)) - 1, Number(day.slice(6, 8)));
  return utcDay(ms - days * 86_400_000);
}
