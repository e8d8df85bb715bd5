/** The console shell: navigation and the page shown. Pages live in views/, one per file. */
import { useEffect, useState } from 'preact/hooks';
import { api, ConsoleApiError, type AgentStatus } from './api-client.js';

export function App() {
  const [status, setStatus] = useState<AgentStatus | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    api.status().then(setStatus, (e: unknown) => setError(e instanceof ConsoleApiError ? e.message : String(e)));
  }, []);
  return (
    <main>
      <h1>Vigil</h1>
      {error && <p role="alert">{error}</p>}
      {status && (
        <dl>
          <dt>Agent API</dt>
          <dd>{status.apiUrl}</dd>
          <dt>Audit API</dt>
          <dd>{status.auditUrl}</dd>
          <dt>Certificate SHA-256</dt>
          <dd>
            <code>{status.certificateSha256}</code>
          </dd>
        </dl>
      )}
    </main>
  );
}
