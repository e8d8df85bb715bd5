/**
 * Overview: is the agent healthy, where do clients connect (with copy buttons), the certificate
 * fingerprint to pin, what is monitored (with its switches: monitored-hosts.tsx), and today's
 * activity, with the activity charts (activity-glance.tsx). Refreshes every few seconds.
 */
import { useState } from 'preact/hooks';
import type { ConsoleStatus } from '../../../shared/console-api.js';
import { api } from '../api-client.js';
import { CopyButton } from '../components/copy-button.js';
import { ErrorMessage } from '../components/error-message.js';
import { Page } from '../components/page.js';
import { formatCount, formatDuration, formatTime } from '../format.js';
import { useResource } from '../use-resource.js';
import { MonitoredHosts } from './monitored-hosts.js';
import { OverviewAlerts } from './overview-alerts.js';
import { VerificationPanel } from './verification-panel.js';
import { ActivityGlance } from './activity-glance.js';

function Health({ status, onChanged }: { status: ConsoleStatus; onChanged: () => Promise<void> }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const { paused, issues } = status.monitoring;
  const toggle = async (): Promise<void> => {
    setBusy(true);
    setError(null);
    try {
      await api.setPaused(!paused);
      await onChanged();
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };
  const kind = issues.length > 0 ? 'error' : paused ? 'warning' : 'ok';
  const headline =
    issues.length > 0
      ? 'Recording has a problem'
      : paused
        ? 'Monitoring is paused: file activity is not recorded'
        : 'Vigil is recording file activity';
  return (
    <section class={`panel health ${kind}`} aria-labelledby="health-title">
      <div class="health-row">
        <h2 id="health-title">{headline}</h2>
        <button type="button" onClick={toggle} disabled={busy} class={paused ? '' : 'secondary'}>
          {paused ? 'Resume monitoring' : 'Pause monitoring'}
        </button>
      </div>
      {issues.length > 0 ? (
        <ul class="issues">
          {issues.map((issue) => (
            <li key={issue.code + issue.message}>{issue.message}</li>
          ))}
        </ul>
      ) : null}
      {paused ? (
        <p>Resuming starts from the current state of the folders; changes made meanwhile are not reported.</p>
      ) : null}
      <ErrorMessage error={error} prefix="Could not change monitoring" />
    </section>
  );
}

function Endpoints({ status }: { status: ConsoleStatus }) {
  const rows = [
    { id: 'api-url', label: 'Agent API', value: status.apiUrl, hint: 'OAuth 2.0 clients and the REST API' },
    { id: 'audit-url', label: 'Audit API', value: status.auditUrl, hint: 'SIEM collectors (search, enumerate)' },
    {
      id: 'fingerprint',
      label: 'Certificate SHA-256',
      value: status.certificateSha256,
      hint: 'Pin this in clients: the certificate is self-signed',
    },
    ...(status.signingKeySha256
      ? [
          {
            id: 'signing-key',
            label: 'Signing key SHA-256',
            value: status.signingKeySha256,
            hint: 'Signs the audit trail: keep it to check copies with vigil verify',
          },
        ]
      : []),
  ];
  return (
    <section class="panel" aria-labelledby="connect-title">
      <h2 id="connect-title">Where clients connect</h2>
      <dl class="endpoints">
        {rows.map((row) => (
          <div key={row.id} class="endpoint">
            <dt>
              {row.label}
              <span class="hint">{row.hint}</span>
            </dt>
            <dd>
              <code id={row.id} class="value">
                {row.value}
              </code>
              <CopyButton value={row.value} label={`Copy ${row.label}`} selectId={row.id} />
            </dd>
          </div>
        ))}
      </dl>
    </section>
  );
}

function Counts({ status }: { status: ConsoleStatus }) {
  return (
    <section class="panel" aria-labelledby="today-title">
      <h2 id="today-title">Today</h2>
      <div class="stats">
        <a class="stat" href="/activity">
          <span class="stat-value">{formatCount(status.counts.todayRecords)}</span>
          <span class="stat-label">activity records today</span>
        </a>
        <a class="stat" href="/applications">
          <span class="stat-value">{formatCount(status.counts.clients)}</span>
          <span class="stat-label">authorized applications</span>
        </a>
        <a class="stat" href="/audit-users">
          <span class="stat-value">{formatCount(status.counts.auditUsers)}</span>
          <span class="stat-label">audit users</span>
        </a>
      </div>
    </section>
  );
}

export function OverviewPage() {
  const status = useResource(() => api.status(), [], 5000);
  const outputs = useResource(() => api.outputs(), [], 5000);
  const s = status.data;
  return (
    <Page title="Overview">
      <ErrorMessage error={status.error} prefix="The agent's status could not be read" />
      {!s && !status.error ? <p aria-live="polite">Loading…</p> : null}
      {s ? (
        <>
          <Health status={s} onChanged={status.reload} />
          <OverviewAlerts />
          <ActivityGlance />
          <div class="columns">
            <Endpoints status={s} />
            <Counts status={s} />
          </div>
          <MonitoredHosts
            hosts={s.hosts}
            outputs={outputs.data}
            outputsError={outputs.error}
            onChanged={async () => {
              await Promise.all([status.reload(), outputs.reload()]);
            }}
          />
          <VerificationPanel />
          <p class="muted footer-line">
            Vigil {s.version ?? ''} · running for {formatDuration(s.uptimeSeconds)} · started {formatTime(s.startedAt)}
          </p>
        </>
      ) : null}
    </Page>
  );
}
