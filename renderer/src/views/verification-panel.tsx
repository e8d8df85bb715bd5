/**
 * Tamper evidence on the overview (docs/integrity.md, docs/console.md): the last verification of
 * the audit database and the log files (when, intact or not, how many problems, the first ones),
 * "Verify now" (the agent runs the same checks as `vigil verify`, in the background), and the
 * public key to keep elsewhere.
 */
import { useEffect, useState } from 'preact/hooks';
import type { VerificationState } from '../../../shared/console-api.js';
import { api } from '../api-client.js';
import { CopyButton } from '../components/copy-button.js';
import { ErrorMessage } from '../components/error-message.js';
import { formatCount, formatTime } from '../format.js';
import { useResource } from '../use-resource.js';

function Outcome({ state }: { state: VerificationState }) {
  const last = state.last;
  if (state.running) return <p aria-live="polite">Verifying…</p>;
  if (state.failure) return <p class="error">The verification could not run: {state.failure}</p>;
  if (!last) return <p>No verification has run yet.</p>;
  return (
    <div aria-live="polite">
      <p class={last.ok ? 'ok' : 'error'} id="verification-outcome">
        {last.ok
          ? `Intact: ${formatCount(last.records)} records and ${formatCount(last.logLines)} log lines in ${formatCount(last.logFiles)} files`
          : `${formatCount(last.problemCount)} problem${last.problemCount === 1 ? '' : 's'} found`}{' '}
        <span class="muted">· checked {formatTime(last.time)}</span>
      </p>
      {last.problems.length > 0 ? (
        <ul class="issues">
          {last.problems.map((problem, i) => (
            <li key={i}>
              <strong>{problem.kind}</strong> {problem.file ?? ''}
              {problem.line !== undefined ? ` line ${problem.line}` : ''}: {problem.detail}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

export function VerificationPanel() {
  const [polling, setPolling] = useState(false);
  const state = useResource(() => api.verification(), [], polling ? 1000 : 30_000);
  const [error, setError] = useState<unknown>(null);
  const s = state.data;
  useEffect(() => {
    if (s && polling && !s.running) setPolling(false);
  }, [s, polling]);
  const verifyNow = async (): Promise<void> => {
    setError(null);
    try {
      await api.verifyNow();
      setPolling(true);
      await state.reload();
    } catch (caught) {
      setError(caught);
    }
  };
  return (
    <section class="panel" aria-labelledby="verification-title">
      <div class="health-row">
        <h2 id="verification-title">Tamper evidence</h2>
        <button type="button" onClick={verifyNow} disabled={!s || s.running}>
          Verify now
        </button>
      </div>
      <ErrorMessage error={state.error ?? error} prefix="The verification could not be read" />
      {s ? (
        <>
          <Outcome state={s} />
          <details>
            <summary>Public key (keep a copy elsewhere to check copies with vigil verify)</summary>
            <pre id="signing-public-key">{s.publicKey}</pre>
            <CopyButton value={s.publicKey} label="Copy the public key" selectId="signing-public-key" />
          </details>
        </>
      ) : null}
    </section>
  );
}
