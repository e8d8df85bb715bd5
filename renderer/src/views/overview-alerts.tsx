/**
 * The Overview's alert banner (docs/alerts.md): the unacknowledged alerts, shown until someone
 * acknowledges them, here or on the Alerts page. Nothing shows while there is none; once shown,
 * the banner stays for this visit (saying that none is left), so focus has somewhere to go after
 * the last Acknowledge.
 */
import { useState } from 'preact/hooks';
import { api } from '../api-client.js';
import { OpenAlerts } from '../components/open-alerts.js';
import { useResource } from '../use-resource.js';

export function OverviewAlerts() {
  const alerts = useResource(() => api.alerts(), [], 5000);
  const [shown, setShown] = useState(false);
  const list = alerts.data ?? [];
  if (list.length > 0 && !shown) setShown(true);
  if (list.length === 0 && !shown) return null;
  return (
    <section
      class={`panel health alert-banner ${list.length > 0 ? 'error' : 'ok'}`}
      aria-labelledby="overview-alerts-title"
    >
      <OpenAlerts alerts={list} onChanged={alerts.reload} titleId="overview-alerts-title" />
      <p>
        <a href="/alerts">Alert rules and details</a>
      </p>
    </section>
  );
}
