/**
 * Fleet membership on the Settings page (docs/fleet.md, docs/console.md): whether this agent
 * shares a PostgreSQL with other agents, the records waiting to be forwarded, the members, and
 * join / leave, which take effect at once (the same as `vigil fleet join | leave`).
 */
import { useState } from 'preact/hooks';
import type { FleetStatusView } from '../../../shared/console-api.js';
import { api, ConsoleApiError } from '../api-client.js';
import { ErrorMessage } from '../components/error-message.js';
import { formatCount, formatTime } from '../format.js';
import { useResource } from '../use-resource.js';

const STATE_TEXT: Record<FleetStatusView['state'], string> = {
  alone: 'This agent is not a fleet member: its records stay in its own audit database.',
  connected: 'Connected to the fleet database.',
  unreachable: 'The fleet database cannot be reached: records wait here and are forwarded when it returns.',
  refused:
    'The fleet database answers but refuses this agent: records wait here until the database or the membership is put right.',
};

function Members({ fleet }: { fleet: FleetStatusView }) {
  if (fleet.members.length === 0) return null;
  return (
    <table aria-label="Fleet members">
      <thead>
        <tr>
          <th scope="col">Agent</th>
          <th scope="col">Host</th>
          <th scope="col">Last seen</th>
          <th scope="col">Status</th>
        </tr>
      </thead>
      <tbody>
        {fleet.members.map((m) => (
          <tr key={m.id}>
            <td>{m.id}</td>
            <td>{m.host ?? ''}</td>
            <td>{m.lastSeen ? formatTime(m.lastSeen) : 'never'}</td>
            <td>{m.status}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function FleetPanel() {
  const fleet = useResource(() => api.fleet(), [], 10_000);
  const [database, setDatabase] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const f = fleet.data;
  const act = async (work: () => Promise<unknown>): Promise<void> => {
    setBusy(true);
    setError(null);
    try {
      await work();
      setPassword('');
      await fleet.reload();
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };
  const join = (event: Event): void => {
    event.preventDefault();
    void act(() => api.joinFleet({ database: database.trim(), password: password === '' ? null : password }));
  };
  const fieldError = error instanceof ConsoleApiError && error.field === 'database' ? error.message : null;
  return (
    <section class="panel" aria-labelledby="fleet-title">
      <h2 id="fleet-title">Fleet</h2>
      <ErrorMessage error={fleet.error} prefix="The fleet state could not be read" />
      {f ? (
        <>
          <p id="fleet-state" aria-live="polite">
            {STATE_TEXT[f.state]}
            {f.database ? (
              <>
                {' '}
                <code>{f.database}</code>
              </>
            ) : null}
            {f.backlog > 0 ? ` ${formatCount(f.backlog)} records waiting.` : ''}
          </p>
          {f.problem ? (
            <p id="fleet-problem" class="error">
              {f.problem}
            </p>
          ) : null}
          <Members fleet={f} />
          {f.database ? (
            <button type="button" disabled={busy} onClick={() => void act(() => api.leaveFleet())}>
              Leave the fleet
            </button>
          ) : (
            <form onSubmit={join} aria-label="Join a fleet">
              <label for="fleet-database">PostgreSQL URL</label>
              <input
                id="fleet-database"
                type="text"
                placeholder="postgres://vigil@db.example:5432/vigil"
                value={database}
                aria-invalid={fieldError !== null}
                aria-describedby={fieldError !== null ? 'fleet-database-error' : undefined}
                onInput={(e) => setDatabase((e.target as HTMLInputElement).value)}
              />
              {fieldError !== null ? (
                <p class="error" id="fleet-database-error">
                  {fieldError}
                </p>
              ) : null}
              <label for="fleet-password">Password (kept owner-only, never shown again)</label>
              <input
                id="fleet-password"
                type="password"
                autocomplete="off"
                value={password}
                onInput={(e) => setPassword((e.target as HTMLInputElement).value)}
              />
              <button type="submit" disabled={busy || database.trim() === ''}>
                Join
              </button>
            </form>
          )}
        </>
      ) : null}
      {fieldError === null ? <ErrorMessage error={error} prefix="The fleet could not be changed" /> : null}
    </section>
  );
}
