/**
 * The unacknowledged alerts (docs/alerts.md), each with its Acknowledge button, and one to
 * acknowledge them all. Used by the Alerts page and the Overview's banner. After a button is
 * used, focus moves to the next alert's button (or to the list's status line), so keyboard use
 * never drops focus back to the top of the page.
 */
import { useRef, useState } from 'preact/hooks';
import type { AlertView } from '../../../shared/console-api.js';
import { api } from '../api-client.js';
import { countOf, formatCount, formatTime } from '../format.js';
import { ErrorMessage } from './error-message.js';

export function alertSummary(alert: AlertView): string {
  const scope = alert.per === 'host' ? ` on ${alert.where}` : '';
  return `${alert.who}${scope}: ${countOf(alert.count, 'record', 'records')} (${alert.actions.join(', ')}) within ${formatCount(alert.windowSeconds)} s`;
}

export function OpenAlerts({
  alerts,
  onChanged,
  headingLevel = 2,
  titleId,
}: {
  alerts: AlertView[];
  onChanged: () => Promise<void>;
  headingLevel?: 2 | 3;
  titleId: string;
}) {
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [notice, setNotice] = useState('');
  const list = useRef<HTMLDivElement>(null);
  const refocus = (index: number): void => {
    // After the re-render: the alert that took the acknowledged one's place, or the status line.
    window.setTimeout(() => {
      const buttons = list.current?.querySelectorAll<HTMLButtonElement>('button.ack-one') ?? [];
      const next = buttons[Math.min(index, buttons.length - 1)];
      if (next) next.focus();
      else list.current?.querySelector<HTMLElement>('.ack-status')?.focus();
    }, 0);
  };
  const run = async (action: () => Promise<unknown>, done: string, index: number): Promise<void> => {
    setBusy(true);
    setError(null);
    try {
      await action();
      await onChanged();
      setNotice(done);
      refocus(index);
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };
  const Heading = headingLevel === 2 ? 'h2' : 'h3';
  return (
    <div ref={list} class="open-alerts">
      <div class="health-row">
        <Heading id={titleId}>
          {alerts.length === 0
            ? 'No unacknowledged alert'
            : countOf(alerts.length, 'unacknowledged alert', 'unacknowledged alerts')}
        </Heading>
        {alerts.length > 1 ? (
          <button
            type="button"
            class="secondary"
            disabled={busy}
            onClick={() => void run(() => api.acknowledgeAllAlerts(), 'Every alert is acknowledged.', 0)}
          >
            Acknowledge all
          </button>
        ) : null}
      </div>
      <p role="status" class="notice ack-status" tabIndex={-1}>
        {notice}
      </p>
      <ErrorMessage error={error} prefix="Could not acknowledge" />
      {alerts.length > 0 ? (
        <ul class="alert-list">
          {alerts.map((alert, index) => (
            <li key={alert.id} class="alert-item">
              <div>
                <strong>{alert.rule}</strong> <span class="muted">{formatTime(alert.firedAt)}</span>
                <p class="alert-text">{alertSummary(alert)}</p>
                {alert.firstPaths.length > 0 ? (
                  <details>
                    <summary>First paths</summary>
                    <ul class="paths mono">
                      {alert.firstPaths.map((p, i) => (
                        <li key={i}>{p}</li>
                      ))}
                    </ul>
                  </details>
                ) : null}
              </div>
              <button
                type="button"
                class="small ack-one"
                disabled={busy}
                aria-label={`Acknowledge ${alert.rule} by ${alert.who}`}
                onClick={() =>
                  void run(
                    () => api.acknowledgeAlert(alert.id),
                    `The alert “${alert.rule}” by ${alert.who} is acknowledged.`,
                    index,
                  )
                }
              >
                Acknowledge
              </button>
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
