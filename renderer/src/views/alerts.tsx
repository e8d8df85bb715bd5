/**
 * Alerts (docs/alerts.md): the unacknowledged alerts with their Acknowledge buttons, and the
 * rules that raise them: add, edit, switch on and off, remove. The form checks a rule before it
 * is sent (alert-rule-form.ts) and shows each problem under its field, as it shows the agent's.
 */
import { useState } from 'preact/hooks';
import { ALERT_ACTIONS, type AlertRule } from '../../../shared/alert-rule.js';
import { api, ConsoleApiError, errorText } from '../api-client.js';
import { ConfirmDialog } from '../components/confirm-dialog.js';
import { Dialog } from '../components/dialog.js';
import { ErrorMessage } from '../components/error-message.js';
import { OpenAlerts } from '../components/open-alerts.js';
import { Page } from '../components/page.js';
import { formatCount } from '../format.js';
import { useResource } from '../use-resource.js';
import { checkDraft, draftOf, type RuleDraft, type RuleField } from './alert-rule-form.js';

type Modal = { kind: 'edit'; rule: AlertRule | null } | { kind: 'remove'; rule: AlertRule };

function describeRule(rule: AlertRule): string {
  const who = rule.per === 'actor' ? 'one actor' : 'one host';
  return `More than ${formatCount(rule.threshold)} ${rule.actions.join(' or ')} by ${who} within ${formatCount(rule.windowSeconds)} s`;
}

function FieldError({ id, text }: { id: string; text: string | undefined }) {
  return (
    <p id={id} class="field-error">
      {text ?? ''}
    </p>
  );
}

function RuleDialog({
  rule,
  onClose,
  onSaved,
}: {
  rule: AlertRule | null;
  onClose: () => void;
  onSaved: (name: string) => void;
}) {
  const [draft, setDraft] = useState<RuleDraft>(draftOf(rule));
  const [problems, setProblems] = useState<Partial<Record<RuleField, string>>>({});
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const set = (patch: Partial<RuleDraft>): void => setDraft({ ...draft, ...patch });
  const agentField =
    error instanceof ConsoleApiError ? (error.field?.split(/[.[]/)[0] as RuleField | undefined) : undefined;
  const problem = (field: RuleField): string | undefined =>
    problems[field] ?? (agentField === field ? errorText(error) : undefined);
  const invalid = (field: RuleField) => (problem(field) ? 'true' : undefined);
  const submit = async (event: Event): Promise<void> => {
    event.preventDefault();
    setError(null);
    const checked = checkDraft(draft);
    if (!checked.ok) {
      setProblems(checked.problems);
      const first = (['name', 'actions', 'threshold', 'windowSeconds', 'per'] as const).find(
        (f) => checked.problems[f],
      );
      document.getElementById(first === 'actions' ? 'rule-action-0' : `rule-${first}`)?.focus();
      return;
    }
    setProblems({});
    setBusy(true);
    try {
      const saved = rule ? await api.saveAlertRule(rule.name, checked.rule) : await api.addAlertRule(checked.rule);
      onSaved(saved.name);
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Dialog title={rule ? `Edit “${rule.name}”` : 'Add an alert rule'} onClose={onClose} wide>
      <form onSubmit={submit} noValidate>
        <label for="rule-name">Name</label>
        <input
          id="rule-name"
          value={draft.name}
          autoFocus
          autoComplete="off"
          aria-invalid={invalid('name')}
          aria-describedby="rule-name-error"
          onInput={(e) => set({ name: (e.currentTarget as HTMLInputElement).value })}
        />
        <FieldError id="rule-name-error" text={problem('name')} />
        <fieldset aria-describedby="rule-actions-error">
          <legend>Count these actions</legend>
          {ALERT_ACTIONS.map((action, i) => (
            <div class="check inline" key={action}>
              <input
                type="checkbox"
                id={`rule-action-${i}`}
                checked={draft.actions.includes(action)}
                aria-invalid={invalid('actions')}
                onChange={(e) =>
                  set({
                    actions: (e.currentTarget as HTMLInputElement).checked
                      ? [...draft.actions, action]
                      : draft.actions.filter((a) => a !== action),
                  })
                }
              />
              <label for={`rule-action-${i}`}>{action}</label>
            </div>
          ))}
        </fieldset>
        <FieldError id="rule-actions-error" text={problem('actions')} />
        <div class="field-grid">
          <div>
            <label for="rule-threshold">Fire when more than (records)</label>
            <input
              id="rule-threshold"
              inputMode="numeric"
              value={draft.threshold}
              aria-invalid={invalid('threshold')}
              aria-describedby="rule-threshold-error"
              onInput={(e) => set({ threshold: (e.currentTarget as HTMLInputElement).value })}
            />
            <FieldError id="rule-threshold-error" text={problem('threshold')} />
          </div>
          <div>
            <label for="rule-windowSeconds">Within (seconds)</label>
            <input
              id="rule-windowSeconds"
              inputMode="numeric"
              value={draft.windowSeconds}
              aria-invalid={invalid('windowSeconds')}
              aria-describedby="rule-windowSeconds-error"
              onInput={(e) => set({ windowSeconds: (e.currentTarget as HTMLInputElement).value })}
            />
            <FieldError id="rule-windowSeconds-error" text={problem('windowSeconds')} />
          </div>
          <div>
            <label for="rule-per">Counted per</label>
            <select
              id="rule-per"
              value={draft.per}
              aria-invalid={invalid('per')}
              aria-describedby="rule-per-error"
              onChange={(e) => set({ per: (e.currentTarget as HTMLSelectElement).value })}
            >
              <option value="actor">actor (who acted)</option>
              <option value="host">host (whoever acted)</option>
            </select>
            <FieldError id="rule-per-error" text={problem('per')} />
          </div>
        </div>
        <div class="check">
          <input
            type="checkbox"
            id="rule-enabled"
            checked={draft.enabled}
            onChange={(e) => set({ enabled: (e.currentTarget as HTMLInputElement).checked })}
          />
          <label for="rule-enabled">Enabled</label>
        </div>
        {error && !agentField ? <ErrorMessage error={error} /> : null}
        <div class="buttons">
          <button type="button" class="secondary" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" disabled={busy}>
            {rule ? 'Save rule' : 'Add rule'}
          </button>
        </div>
      </form>
    </Dialog>
  );
}

function RulesTable({
  rules,
  onEdit,
  onRemove,
  onToggle,
}: {
  rules: AlertRule[];
  onEdit: (rule: AlertRule) => void;
  onRemove: (rule: AlertRule) => void;
  onToggle: (rule: AlertRule) => void;
}) {
  if (rules.length === 0) return <p>There is no alert rule: mass changes raise no alert.</p>;
  return (
    <div class="table-wrap">
      <table>
        <caption class="visually-hidden">Alert rules</caption>
        <thead>
          <tr>
            <th scope="col">Rule</th>
            <th scope="col">Fires on</th>
            <th scope="col">State</th>
            <th scope="col">
              <span class="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {rules.map((rule) => (
            <tr key={rule.name}>
              <th scope="row">{rule.name}</th>
              <td>{describeRule(rule)}</td>
              <td>{rule.enabled ? 'Enabled' : 'Disabled'}</td>
              <td class="row-actions">
                <button
                  type="button"
                  class="secondary small"
                  onClick={() => onToggle(rule)}
                  aria-label={`${rule.enabled ? 'Disable' : 'Enable'} ${rule.name}`}
                >
                  {rule.enabled ? 'Disable' : 'Enable'}
                </button>
                <button
                  type="button"
                  class="secondary small"
                  onClick={() => onEdit(rule)}
                  aria-label={`Edit ${rule.name}`}
                >
                  Edit
                </button>
                <button
                  type="button"
                  class="danger small"
                  onClick={() => onRemove(rule)}
                  aria-label={`Remove ${rule.name}`}
                >
                  Remove
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function AlertsPage() {
  const alerts = useResource(() => api.alerts(), [], 5000);
  const rules = useResource(() => api.alertRules(), []);
  const [modal, setModal] = useState<Modal | null>(null);
  const [notice, setNotice] = useState('');
  const [error, setError] = useState<unknown>(null);
  const done = async (message: string): Promise<void> => {
    setModal(null);
    await rules.reload();
    setNotice(message);
  };
  const toggle = async (rule: AlertRule): Promise<void> => {
    setError(null);
    try {
      await api.saveAlertRule(rule.name, { ...rule, enabled: !rule.enabled });
      await done(`“${rule.name}” is ${rule.enabled ? 'disabled' : 'enabled'}.`);
    } catch (caught) {
      setError(caught);
    }
  };
  return (
    <Page title="Alerts">
      <p class="intro">
        An alert fires once per burst when one actor (or host) makes more changes than a rule allows in its window. It
        becomes an activity record, goes to the syslog outputs and stays here and on the Overview until acknowledged.
      </p>
      <section class="panel" aria-labelledby="open-alerts-title">
        <ErrorMessage error={alerts.error} prefix="The alerts could not be read" />
        {alerts.data ? (
          <OpenAlerts alerts={alerts.data} onChanged={alerts.reload} titleId="open-alerts-title" />
        ) : (
          <h2 id="open-alerts-title">Unacknowledged alerts</h2>
        )}
      </section>
      <section class="panel" aria-labelledby="rules-title">
        <div class="health-row">
          <h2 id="rules-title">Rules</h2>
          <button type="button" onClick={() => setModal({ kind: 'edit', rule: null })}>
            Add rule
          </button>
        </div>
        <p role="status" class="notice">
          {notice}
        </p>
        <ErrorMessage error={rules.error ?? error} prefix="The rules could not be changed" />
        {rules.data ? (
          <RulesTable
            rules={rules.data}
            onEdit={(rule) => setModal({ kind: 'edit', rule })}
            onRemove={(rule) => setModal({ kind: 'remove', rule })}
            onToggle={(rule) => void toggle(rule)}
          />
        ) : null}
      </section>
      {modal?.kind === 'edit' ? (
        <RuleDialog
          rule={modal.rule}
          onClose={() => setModal(null)}
          onSaved={(name) => void done(`“${name}” is saved.`)}
        />
      ) : null}
      {modal?.kind === 'remove' ? (
        <ConfirmDialog
          title={`Remove “${modal.rule.name}”?`}
          text="This rule stops raising alerts. Alerts it raised stay until acknowledged."
          action="Remove rule"
          danger
          onClose={() => setModal(null)}
          onConfirm={async () => {
            await api.removeAlertRule(modal.rule.name);
            await done(`“${modal.rule.name}” is removed.`);
          }}
        />
      ) : null}
    </Page>
  );
}
