/**
 * The alerts not acknowledged yet, kept in `alerts.json` in the data dir (written durably:
 * durable-file.ts), so the overview, the console and the tray still show them after a restart.
 * Acknowledging removes them; the self-audit record says who did it and when.
 *
 * The book is bounded: beyond MAX_OPEN_ALERTS the oldest is dropped (and logged), since a rule
 * fires at most once per actor and burst, that many open alerts means nobody is looking.
 */
import fs from 'node:fs/promises';
import type { AlertView } from '../../shared/console-api.js';
import { writeFileDurably } from '../config/durable-file.js';
import type { Logger } from '../log/logger.js';

export const MAX_OPEN_ALERTS = 1000;

export class AlertBook {
  private writes: Promise<void> = Promise.resolve();

  private constructor(
    private readonly file: string,
    private open: AlertView[],
    private readonly log: Logger,
  ) {}

  /** Reads the file; a missing one is an empty book, an unreadable one is logged and set aside. */
  static async load(file: string, log: Logger): Promise<AlertBook> {
    let alerts: AlertView[] = [];
    try {
      const parsed = JSON.parse(await fs.readFile(file, 'utf8')) as { alerts?: unknown };
      if (Array.isArray(parsed.alerts)) alerts = parsed.alerts.filter(isAlertView);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
        log.error('unacknowledged alerts could not be read; starting with none', {
          file,
          error: (error as Error).message,
        });
      }
    }
    return new AlertBook(file, alerts, log);
  }

  /** Newest first. */
  list(): AlertView[] {
    return [...this.open].reverse();
  }

  get(id: string): AlertView | undefined {
    return this.open.find((alert) => alert.id === id);
  }

  add(alert: AlertView): void {
    this.open.push(alert);
    if (this.open.length > MAX_OPEN_ALERTS) {
      const dropped = this.open.shift()!;
      this.log.warn('too many unacknowledged alerts: the oldest is forgotten', { id: dropped.id, rule: dropped.rule });
    }
    this.save();
  }

  /** Removes the alerts and returns them (the unknown ids are left out). */
  remove(ids: ReadonlySet<string>): AlertView[] {
    const removed = this.open.filter((alert) => ids.has(alert.id));
    if (removed.length === 0) return [];
    this.open = this.open.filter((alert) => !ids.has(alert.id));
    this.save();
    return removed;
  }

  /** Resolves once every change so far is on disk. */
  flush(): Promise<void> {
    return this.writes;
  }

  private save(): void {
    const text = JSON.stringify({ alerts: this.open }, null, 2) + '\n';
    this.writes = this.writes
      .then(() => writeFileDurably(this.file, text))
      .catch((error: Error) => this.log.error('unacknowledged alerts could not be saved', { error: error.message }));
  }
}

function isAlertView(value: unknown): value is AlertView {
  const alert = value as Partial<AlertView> | null;
  return (
    typeof alert === 'object' &&
    alert !== null &&
    typeof alert.id === 'string' &&
    typeof alert.rule === 'string' &&
    typeof alert.who === 'string' &&
    typeof alert.count === 'number' &&
    Array.isArray(alert.firstPaths)
  );
}
