/**
 * Alerts (docs/alerts.md): the unacknowledged alerts with their Acknowledge buttons, and the
 * rules that raise them: add, edit, switch on and off, remove. The form checks a rule before it
 * is sent (alert-rule-form.ts) and shows each problem under its field, as it shows the agent's.
 */
import { useState } from 'preact/hooks';
import { ALERT_ACTIONS, type AlertRule } from '../../../shared/alert-rule.js';
import { api, errorField, errorText } from '../api-client.js';
import { CheckList } from '../components/check-list.js';
import { DataTable } from '../components/data-table.js';
import { ConfirmDialog } from '../components/confirm-dialog.js';
import { Dialog } from '../components/dialog.js';
import { FormButtons } from '../components/form-buttons.js';
import { ErrorMessage } from '../components/error-message.js';
import { OpenAlerts } from '../components/open-alerts.js';
import { Page } from '../components/page.js';
import { RowActions } from '../components/row-actions.js';
import { FieldError, TextField } from '../components/text-field.js';
import { formatCount } from '../format.js';
import { useAction } from '../use-action.js';
import { usePageDialogs } from '../use-page-dialogs.js';
import { useResource } from '../use-resource.js';
import { checkDraft, draftOf, type RuleDraft, type RuleField } from './alert-rule-form.js';

type Modal = { kind: 'edit'; rule: AlertRule | null } | { kind: 'remove'; rule: AlertRule };

function describeRule(rule: AlertRule): string {
  const who = rule.per === 'actor' ? 'one actor' : 'one host';
  return `More than ${formatCount(rule.threshold)} ${rule.actions.join(' or ')} by ${who} within ${formatCount(rule.windowSeconds)} s`;
}

const ACTION_OPTIONS = ALERT_ACTIONS.map((action) => ({ value: action, label: action }));

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
  const action = useAction();
  const set = (patch: Partial<RuleDraft>): void => setDraft({ ...draft, ...patch });
  // The agent names nested fields (`actions[0]`): the form shows them under the top-level one.
  const agentField = errorField(action.error)?.split(/[.[]/)[0] as RuleField | undefined;
  const problem = (field: RuleField): string | undefined =>
    problems[field] ?? (agentField === field ? errorText(action.error) : undefined);
  const submit = async (event: Event): Promise<void> => {
    event.preventDefault();
    action.clearError();
    const checked = checkDraft(draft);
    if (!checked.ok) {
      setProblems(checked.problems);
      const first = (['name', 'actions', 'threshold', 'windowSeconds', 'per'] as const).find(
        (f) => checked.problems[f],
      );
      document.getElementById(first === 'actions' ? `rule-action-${ALERT_ACTIONS[0]}` : `rule-${first}`)?.focus();
      return;
    }
    setProblems({});
    await action.run(async () => {
      const saved = rule ? await api.saveAlertRule(rule.name, checked.rule) : await api.addAlertRule(checked.rule);
      onSaved(saved.name);
    });
  };
  return (
    <Dialog title={rule ? `Edit “${rule.name}”` : 'Add an alert rule'} onClose={onClose} wide>
      <form onSubmit={submit} noValidate>
        <TextField
          id="rule-name"
          label="Name"
          value={draft.name}
          autoFocus
          error={problem('name')}
          onInput={(name) => set({ name })}
        />
        <CheckList
          legend="Count these actions"
          idPrefix="rule-action"
          options={ACTION_OPTIONS}
          value={draft.actions}
          onChange={(actions) => set({ actions })}
          inline
          invalid={problem('actions') !== undefined}
          describedBy="rule-actions-error"
        />
        <FieldError id="rule-actions-error" text={problem('actions')} />
        <div class="field-grid">
          <div>
            <TextField
              id="rule-threshold"
              label="Fire when more than (records)"
              inputMode="numeric"
              value={draft.threshold}
              error={problem('threshold')}
              onInput={(threshold) => set({ threshold })}
            />
          </div>
          <div>
            <TextField
              id="rule-windowSeconds"
              label="Within (seconds)"
              inputMode="numeric"
              value={draft.windowSeconds}
              error={problem('windowSeconds')}
              onInput={(windowSeconds) => set({ windowSeconds })}
            />
          </div>
          <div>
            <label for="rule-per">Counted per</label>
            <select
              id="rule-per"
              value={draft.per}
              aria-invalid={problem('per') ? 'true' : undefined}
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
        {agentField ? null : <ErrorMessage error={action.error} />}
        <FormButtons submit={rule ? 'Save rule' : 'Add rule'} onCancel={onClose} busy={action.busy} />
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
    <DataTable caption="Alert rules" columns={['Rule', 'Fires on', 'State']} actions>
      {rules.map((rule) => (
        <tr key={rule.name}>
          <th scope="row">{rule.name}</th>
          <td>{describeRule(rule)}</td>
          <td>{rule.enabled ? 'Enabled' : 'Disabled'}</td>
          <RowActions
            actions={[
              {
                label: rule.enabled ? 'Disable' : 'Enable',
                name: `${rule.enabled ? 'Disable' : 'Enable'} ${rule.name}`,
                onClick: () => onToggle(rule),
              },
              { label: 'Edit', name: `Edit ${rule.name}`, onClick: () => onEdit(rule) },
              { label: 'Remove', name: `Remove ${rule.name}`, danger: true, onClick: () => onRemove(rule) },
            ]}
          />
        </tr>
      ))}
    </DataTable>
  );
}

export function AlertsPage() {
  const alerts = useResource(() => api.alerts(), [], 5000);
  const rules = useResource(() => api.alertRules(), []);
  const { modal, open: setModal, close, notice, done } = usePageDialogs<Modal>(rules.reload);
  const toggling = useAction();
  const toggle = async (rule: AlertRule): Promise<void> => {
    const saved = await toggling.run(() => api.saveAlertRule(rule.name, { ...rule, enabled: !rule.enabled }));
    if (saved) await done(`“${rule.name}” is ${rule.enabled ? 'disabled' : 'enabled'}.`);
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
        <ErrorMessage error={rules.error ?? toggling.error} prefix="The rules could not be changed" />
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
        <RuleDialog rule={modal.rule} onClose={close} onSaved={(name) => void done(`“${name}” is saved.`)} />
      ) : null}
      {modal?.kind === 'remove' ? (
        <ConfirmDialog
          title={`Remove “${modal.rule.name}”?`}
          text="This rule stops raising alerts. Alerts it raised stay until acknowledged."
          action="Remove rule"
          danger
          onClose={close}
          onConfirm={async () => {
            await api.removeAlertRule(modal.rule.name);
            await done(`“${modal.rule.name}” is removed.`);
          }}
        />
      ) : null}
    </Page>
  );
}
