/**
 * Settings: the ports of the three listeners, the IP allow-list of the agent and audit APIs
 * (each entry checked while typing, with the agent's own parser), and the audit API's vendor
 * segment. The allow-list and the vendor apply at once; ports after a restart, which the page says.
 */
import { useEffect, useState } from 'preact/hooks';
import type { ConsoleSettingsView, EditableSettings, SettingsPatch } from '../../../shared/console-api.js';
import { parseAllowListEntry } from '../../../shared/ip-address.js';
import { api, ConsoleApiError } from '../api-client.js';
import { ErrorMessage } from '../components/error-message.js';
import { Page } from '../components/page.js';
import { useResource } from '../use-resource.js';
import { FleetPanel } from './fleet-panel.js';

const VENDOR = /^[a-z][a-z0-9-]{0,31}$/;

interface Draft {
  agentApiPort: string;
  auditApiPort: string;
  consolePort: string;
  vendor: string;
  allowList: string[];
}

const draftOf = (s: EditableSettings): Draft => ({
  agentApiPort: String(s.agentApi.port),
  auditApiPort: String(s.auditApi.port),
  consolePort: String(s.console.port),
  vendor: s.auditApi.vendor,
  allowList: [...s.allowList],
});

function portProblem(text: string): string | null {
  if (!/^\d{1,5}$/.test(text.trim()) || Number(text) > 65535)
    return 'A port is a number from 1 to 65535 (0: any free port).';
  return null;
}

/** Problems per field, keyed as the agent names fields (`agentApi.port`, `allowList[2]`). */
function problemsOf(d: Draft): Record<string, string> {
  const out: Record<string, string> = {};
  const ports: Array<[string, string]> = [
    ['agentApi.port', d.agentApiPort],
    ['auditApi.port', d.auditApiPort],
    ['console.port', d.consolePort],
  ];
  for (const [field, value] of ports) {
    const problem = portProblem(value);
    if (problem) out[field] = problem;
  }
  const seen = new Map<string, string>();
  for (const [field, value] of ports) {
    const n = value.trim();
    if (out[field] || n === '0') continue;
    if (seen.has(n)) out[field] = `The same port as ${seen.get(n)}.`;
    seen.set(
      n,
      field === 'agentApi.port' ? 'the agent API' : field === 'auditApi.port' ? 'the audit API' : 'the console',
    );
  }
  if (!VENDOR.test(d.vendor))
    out['auditApi.vendor'] = 'Lower-case letters, digits and "-", starting with a letter (at most 32).';
  d.allowList.forEach((entry, i) => {
    const parsed = parseAllowListEntry(entry);
    if (!parsed.ok) out[`allowList[${i}]`] = parsed.error;
    else if (d.allowList.findIndex((e) => e.trim() === entry.trim()) !== i) out[`allowList[${i}]`] = 'Listed twice.';
  });
  return out;
}

function patchOf(d: Draft): SettingsPatch {
  return {
    agentApi: { port: Number(d.agentApiPort) },
    auditApi: { port: Number(d.auditApiPort), vendor: d.vendor },
    console: { port: Number(d.consolePort) },
    allowList: d.allowList.map((e) => e.trim()),
  };
}

const FIELD_LABELS: Record<string, string> = {
  'agentApi.port': 'Agent API port',
  'auditApi.port': 'Audit API port',
  'console.port': 'Console port',
};

function PortField(props: {
  id: string;
  field: string;
  value: string;
  running: number;
  error?: string;
  onInput: (v: string) => void;
}) {
  return (
    <div class="field">
      <label for={props.id}>{FIELD_LABELS[props.field]}</label>
      <input
        id={props.id}
        inputMode="numeric"
        value={props.value}
        aria-invalid={props.error ? 'true' : undefined}
        aria-describedby={`${props.id}-note ${props.id}-error`}
        onInput={(e) => props.onInput((e.currentTarget as HTMLInputElement).value)}
      />
      <p id={`${props.id}-note`} class="hint">
        In use now: {props.running}
      </p>
      <p id={`${props.id}-error`} class="field-error">
        {props.error ?? ''}
      </p>
    </div>
  );
}

function SettingsForm({ view, onSaved }: { view: ConsoleSettingsView; onSaved: (v: ConsoleSettingsView) => void }) {
  const [draft, setDraft] = useState<Draft>(draftOf(view.settings));
  const [serverError, setServerError] = useState<unknown>(null);
  const [notice, setNotice] = useState('');
  const [busy, setBusy] = useState(false);
  useEffect(() => setDraft(draftOf(view.settings)), [view]);
  const problems = problemsOf(draft);
  if (serverError instanceof ConsoleApiError && serverError.field && !problems[serverError.field]) {
    problems[serverError.field] = serverError.message;
  }
  const valid = Object.keys(problemsOf(draft)).length === 0;
  const set = (change: Partial<Draft>): void => {
    setDraft({ ...draft, ...change });
    setServerError(null);
    setNotice('');
  };
  const setEntry = (i: number, value: string): void =>
    set({ allowList: draft.allowList.map((e, j) => (j === i ? value : e)) });
  const save = async (event: Event): Promise<void> => {
    event.preventDefault();
    if (!valid) return;
    setBusy(true);
    try {
      const saved = await api.saveSettings(patchOf(draft));
      onSaved(saved);
      setNotice(
        saved.restartNeeded.length > 0
          ? 'Saved. The allow-list and the vendor apply now; the new ports apply when Vigil restarts.'
          : 'Saved and applied.',
      );
    } catch (caught) {
      setServerError(caught);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form onSubmit={save} noValidate>
      <section class="panel" aria-labelledby="ports-title">
        <h2 id="ports-title">Ports</h2>
        <p class="hint">A port change needs a restart of Vigil. 0 picks any free port at each start.</p>
        <div class="field-row">
          <PortField
            id="port-api"
            field="agentApi.port"
            value={draft.agentApiPort}
            running={view.running.agentApiPort}
            error={problems['agentApi.port']}
            onInput={(v) => set({ agentApiPort: v })}
          />
          <PortField
            id="port-audit"
            field="auditApi.port"
            value={draft.auditApiPort}
            running={view.running.auditApiPort}
            error={problems['auditApi.port']}
            onInput={(v) => set({ auditApiPort: v })}
          />
          <PortField
            id="port-console"
            field="console.port"
            value={draft.consolePort}
            running={view.running.consolePort}
            error={problems['console.port']}
            onInput={(v) => set({ consolePort: v })}
          />
        </div>
      </section>

      <section class="panel" aria-labelledby="allow-title">
        <h2 id="allow-title">Allow-list</h2>
        <p class="hint" id="allow-help">
          Addresses and networks that may connect to the agent API and the audit API: IPv4 or IPv6, single addresses
          (192.168.1.20) or CIDR ranges (10.0.0.0/8, fd00::/48). Changes apply at once; removed addresses lose their
          open connections.
        </p>
        {draft.allowList.length === 0 ? (
          <p role="alert" class="warning-box">
            The list is empty: no client at all can reach the APIs, not even from this computer.
          </p>
        ) : null}
        <ul class="allow-list">
          {draft.allowList.map((entry, i) => {
            const id = `allow-${i}`;
            const problem = problems[`allowList[${i}]`];
            return (
              <li key={i}>
                <label for={id} class="visually-hidden">
                  Allow-list entry {i + 1}
                </label>
                <input
                  id={id}
                  class="mono"
                  value={entry}
                  aria-invalid={problem ? 'true' : undefined}
                  aria-describedby={`${id}-error allow-help`}
                  onInput={(e) => setEntry(i, (e.currentTarget as HTMLInputElement).value)}
                />
                <button
                  type="button"
                  class="secondary small"
                  aria-label={`Remove entry ${entry || i + 1}`}
                  onClick={() => set({ allowList: draft.allowList.filter((_, j) => j !== i) })}
                >
                  Remove
                </button>
                <p id={`${id}-error`} class="field-error">
                  {problem ?? ''}
                </p>
              </li>
            );
          })}
        </ul>
        <button
          type="button"
          class="secondary"
          onClick={() => {
            set({ allowList: [...draft.allowList, ''] });
            window.setTimeout(() => document.getElementById(`allow-${draft.allowList.length}`)?.focus(), 0);
          }}
        >
          Add entry
        </button>
      </section>

      <section class="panel" aria-labelledby="vendor-title">
        <h2 id="vendor-title">Audit API</h2>
        <div class="field">
          <label for="vendor">Vendor segment</label>
          <input
            id="vendor"
            class="mono"
            value={draft.vendor}
            aria-invalid={problems['auditApi.vendor'] ? 'true' : undefined}
            aria-describedby="vendor-help vendor-error"
            onInput={(e) => set({ vendor: (e.currentTarget as HTMLInputElement).value })}
          />
          <p id="vendor-help" class="hint">
            The first part of the audit API's path: https://host:{view.running.auditApiPort}/
            <strong>{draft.vendor || '…'}</strong>/api/v1/. Use <span class="mono">netwrix</span> so clients written for
            Netwrix Auditor work unchanged. Applies at once.
          </p>
          <p id="vendor-error" class="field-error">
            {problems['auditApi.vendor'] ?? ''}
          </p>
        </div>
      </section>

      {serverError && !(serverError instanceof ConsoleApiError && serverError.field) ? (
        <ErrorMessage error={serverError} prefix="Not saved" />
      ) : null}
      {view.restartNeeded.length > 0 ? (
        <p class="warning-box" role="status">
          Restart Vigil to apply: {view.restartNeeded.map((f) => FIELD_LABELS[f] ?? f).join(', ')}.
        </p>
      ) : null}
      <p role="status" class="notice">
        {notice}
      </p>
      <div class="buttons left">
        <button type="submit" disabled={busy || !valid}>
          Save settings
        </button>
        <button type="button" class="secondary" onClick={() => set(draftOf(view.settings))}>
          Undo changes
        </button>
      </div>
    </form>
  );
}

export function SettingsPage() {
  const settings = useResource(() => api.settings(), []);
  const [view, setView] = useState<ConsoleSettingsView | null>(null);
  const current = view ?? settings.data;
  return (
    <Page title="Settings">
      <ErrorMessage error={settings.error} prefix="The settings could not be read" />
      {current ? <SettingsForm view={current} onSaved={setView} /> : settings.error ? null : <p>Loading…</p>}
      <FleetPanel />
    </Page>
  );
}
