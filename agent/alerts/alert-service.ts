/**
 * Alerts on mass changes (docs/alerts.md), put together: the engine counts every committed
 * record, a fired alert goes into the book of unacknowledged alerts and becomes an activity
 * record through the pipeline (so it reaches the store, the syslog outputs and the live feed),
 * and listeners (the console, the tray) hear that the open alerts changed.
 */
import crypto from 'node:crypto';
import type { AlertView } from '../../shared/console-api.js';
import type { SettingsStore } from '../config/settings-store.js';
import type { Logger } from '../log/logger.js';
import type { ChangeRecorder } from '../pipeline/change-recorder.js';
import type { PipelineItem, StoredItem } from '../pipeline/pipeline-item.js';
import { ServiceError } from '../util/service-error.js';
import type { AlertBook } from './alert-book.js';
import { AlertEngine, type RaisedAlert } from './alert-engine.js';
import { alertToItem } from './alert-record.js';

export interface AlertServiceDeps {
  settings: SettingsStore;
  book: AlertBook;
  /** Submits records to the activity pipeline. */
  write: (items: PipelineItem[]) => Promise<unknown>;
  recorder: ChangeRecorder;
  /** The machine the agent runs on: the alert record's `Workstation`. */
  workstation: string;
  log: Logger;
  now?: () => number;
}

/** `Who` of a host rule's alert when more than one account acted. */
export const SEVERAL_ACCOUNTS = 'several accounts';

export class AlertService {
  private readonly engine: AlertEngine;
  private readonly listeners = new Set<(fired: AlertView | null) => void>();
  private readonly pending = new Set<Promise<unknown>>();
  private readonly unsubscribe: () => void;

  constructor(private readonly deps: AlertServiceDeps) {
    this.engine = new AlertEngine(deps.settings.current.alerts);
    this.unsubscribe = deps.settings.onChange((next) => this.engine.setRules(next.alerts));
  }

  /** The pipeline's after-commit step: counts the batch and raises what fires. */
  observe(items: readonly StoredItem[]): void {
    for (const raised of this.engine.observe(items)) this.fire(raised);
  }

  /** Newest first. */
  unacknowledged(): AlertView[] {
    return this.deps.book.list();
  }

  acknowledge(id: string, actor: string): AlertView {
    const [alert] = this.close(new Set([id]), actor);
    if (!alert) throw new ServiceError('not_found', `no unacknowledged alert has id "${id}"`, 'id');
    return alert;
  }

  acknowledgeAll(actor: string): number {
    return this.close(new Set(this.deps.book.list().map((alert) => alert.id)), actor).length;
  }

  /**
   * Called when the open alerts change: with the alert when one fired, with null when some were
   * acknowledged. Returns the unsubscribe function.
   */
  onChange(listener: (fired: AlertView | null) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Resolves once every alert record so far is committed and the book is saved. */
  async flush(): Promise<void> {
    await Promise.all([...this.pending]);
    await this.deps.book.flush();
  }

  stop(): Promise<void> {
    this.unsubscribe();
    this.listeners.clear();
    return this.flush();
  }

  private fire(raised: RaisedAlert): void {
    const who =
      raised.rule.per === 'actor' ? raised.key : raised.actors.length === 1 ? raised.actors[0]! : SEVERAL_ACCOUNTS;
    const alert: AlertView = {
      id: crypto.randomUUID(),
      rule: raised.rule.name,
      per: raised.rule.per,
      key: raised.key,
      who,
      where: raised.where,
      actions: [...raised.rule.actions],
      count: raised.count,
      threshold: raised.rule.threshold,
      windowSeconds: raised.rule.windowSeconds,
      firedAt: new Date(raised.atMs).toISOString(),
      firstPaths: [...raised.firstPaths],
    };
    this.deps.log.warn('alert', { rule: alert.rule, who: alert.who, count: alert.count, window: alert.windowSeconds });
    this.deps.book.add(alert);
    const written: Promise<unknown> = this.deps
      .write([alertToItem(alert, this.deps.workstation, (this.deps.now ?? Date.now)())])
      .catch((error: Error) => this.deps.log.error('alert record not stored', { id: alert.id, error: error.message }))
      .finally(() => this.pending.delete(written));
    this.pending.add(written);
    this.emit(alert);
  }

  private close(ids: ReadonlySet<string>, actor: string): AlertView[] {
    const closed = this.deps.book.remove(ids);
    for (const alert of closed) {
      this.engine.acknowledge(alert.rule, alert.key);
      this.deps.recorder.recordChange({
        actor,
        action: 'Modified',
        objectType: 'Alert',
        what: alert.rule,
        id: alert.id,
        details: [
          { PropertyName: 'State', Before: 'Unacknowledged', After: 'Acknowledged' },
          { PropertyName: 'Who', Before: alert.who, After: alert.who },
        ],
      });
    }
    if (closed.length > 0) this.emit(null);
    return closed;
  }

  private emit(fired: AlertView | null): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(fired);
      } catch {
        // One broken listener must not keep the others from hearing about the alert.
      }
    }
  }
}
