/**
 * Directory domains (docs/directory.md): each domain with its status and Changes policies; add
 * or edit one (server, bind DN, password, base DN, polling interval, TLS), test its connection,
 * enable or disable it, remove it after a confirmation. The password is sent, never shown.
 */
import { useState } from 'preact/hooks';
import type { DomainRequest, DomainSummary, DomainTestResult } from '../../../shared/console-api.js';
import { api, errorField, errorText } from '../api-client.js';
import { ConfirmDialog } from '../components/confirm-dialog.js';
import { DataTable } from '../components/data-table.js';
import { Dialog } from '../components/dialog.js';
import { FormButtons } from '../components/form-buttons.js';
import { ErrorMessage } from '../components/error-message.js';
import { Page } from '../components/page.js';
import { RowActions } from '../components/row-actions.js';
import { StatusBadge } from '../components/status-badge.js';
import { TextField } from '../components/text-field.js';
import { useAction } from '../use-action.js';
import { usePageDialogs } from '../use-page-dialogs.js';
import { useResource } from '../use-resource.js';

type Modal = { kind: 'edit'; domain: DomainSummary | null } | { kind: 'remove'; domain: DomainSummary };

function requestOf(domain: DomainSummary): DomainRequest {
  const { name, ldapServer, userName, baseDn, pollingIntervalSeconds, tls, caFile, isEnabled, comment } = domain;
  return { name, ldapServer, userName, baseDn, pollingIntervalSeconds, tls, caFile, isEnabled, comment };
}

interface TextFieldSpec {
  key: 'name' | 'ldapServer' | 'userName' | 'baseDn' | 'pollingIntervalSeconds' | 'caFile';
  label: string;
  hint?: string;
  type?: 'number';
}

/** The form's text fields in order; the password (after the bind DN) and TLS have their own. */
const TEXT_FIELDS: TextFieldSpec[] = [
  { key: 'name', label: 'Domain name' },
  { key: 'ldapServer', label: 'LDAP server', hint: 'ldaps://host:636 or ldap://host:389' },
  { key: 'userName', label: 'Bind DN' },
  { key: 'baseDn', label: 'Base DN', hint: 'Empty: the server’s default naming context.' },
  { key: 'pollingIntervalSeconds', label: 'Polling interval (seconds)', type: 'number' },
  { key: 'caFile', label: 'CA file to trust', hint: 'A PEM file; empty: the system’s CAs.' },
];

/** The fields that show the agent's refusal under themselves; any other goes above the buttons. */
const FIELDS_WITH_ERRORS = [...TEXT_FIELDS.map((f) => f.key as string), 'password'];

function EditDialog({
  domain,
  onClose,
  onSaved,
}: {
  domain: DomainSummary | null;
  onClose: () => void;
  onSaved: (name: string) => void;
}) {
  const initial = domain
    ? requestOf(domain)
    : {
        name: '',
        ldapServer: 'ldaps://',
        userName: '',
        baseDn: '',
        pollingIntervalSeconds: 5,
        tls: 'starttls' as const,
        caFile: '',
      };
  const [form, setForm] = useState<DomainRequest>(initial);
  const [password, setPassword] = useState('');
  const action = useAction();
  const field = errorField(action.error);
  const set = (key: keyof DomainRequest) => (value: string) => setForm({ ...form, [key]: value });
  const fieldError = (name: string): string | undefined => (field === name ? errorText(action.error) : undefined);
  const textField = ({ key, label, hint, type }: TextFieldSpec) => (
    <TextField
      key={key}
      id={`domain-${key}`}
      label={label}
      value={String(form[key] ?? '')}
      onInput={set(key)}
      error={fieldError(key)}
      {...(type ? { type } : {})}
      {...(hint ? { hint } : {})}
    />
  );
  const submit = async (event: Event): Promise<void> => {
    event.preventDefault();
    const body: DomainRequest = { ...form, pollingIntervalSeconds: Number(form.pollingIntervalSeconds) };
    if (password !== '') body.password = password;
    await action.run(async () => {
      const saved = domain ? await api.saveDomain(domain.id, body) : await api.addDomain(body);
      onSaved(saved.name);
    });
  };
  return (
    <Dialog title={domain ? `Domain “${domain.name}”` : 'Add a domain'} onClose={onClose} wide>
      <form onSubmit={submit} noValidate>
        {TEXT_FIELDS.slice(0, 3).map(textField)}
        <TextField
          id="domain-password"
          label="Password"
          type="password"
          value={password}
          onInput={setPassword}
          error={fieldError('password')}
          {...(domain ? { hint: 'Leave empty to keep the stored password.' } : {})}
        />
        {TEXT_FIELDS.slice(3, 5).map(textField)}
        <label for="domain-tls">TLS on ldap://</label>
        <select
          id="domain-tls"
          value={form.tls}
          onChange={(e) =>
            setForm({ ...form, tls: (e.currentTarget as HTMLSelectElement).value as 'starttls' | 'none' })
          }
        >
          <option value="starttls">StartTLS (required)</option>
          <option value="none">None: read and bind in clear text</option>
        </select>
        {TEXT_FIELDS.slice(5).map(textField)}
        {FIELDS_WITH_ERRORS.includes(field ?? '') ? null : <ErrorMessage error={action.error} />}
        <FormButtons submit={domain ? 'Save' : 'Add domain'} onCancel={onClose} busy={action.busy} />
      </form>
    </Dialog>
  );
}

export function DomainsPage() {
  const domains = useResource(() => api.domains(), []);
  const { modal, open: setModal, close, notice, setNotice, done } = usePageDialogs<Modal>(domains.reload);
  const [tests, setTests] = useState<Record<string, DomainTestResult>>({});
  // Testing and switching act from the table; a failure is shown above it, not swallowed.
  const rowAction = useAction();
  const test = async (domain: DomainSummary): Promise<void> => {
    setNotice(`Testing the connection to ${domain.name}…`);
    await rowAction.run(async () => {
      const result = await api.testDomain(domain.id);
      setTests((before) => ({ ...before, [domain.id]: result }));
      setNotice(`${domain.name}: ${result.summary}`);
    });
  };
  const toggle = async (domain: DomainSummary): Promise<void> => {
    const saved = await rowAction.run(() =>
      api.saveDomain(domain.id, { ...requestOf(domain), isEnabled: !domain.isEnabled }),
    );
    if (saved) await done(`${domain.name} is ${domain.isEnabled ? 'disabled' : 'enabled'}.`);
  };
  const list = domains.data ?? [];
  return (
    <Page
      title="Domains"
      actions={
        <button type="button" onClick={() => setModal({ kind: 'edit', domain: null })}>
          Add domain
        </button>
      }
    >
      <p class="intro">
        Directories whose changes are recorded. A domain is monitored when it is enabled and has an enabled Changes
        policy (created with the agent API’s policy routes).
      </p>
      <p role="status" class="notice">
        {notice}
      </p>
      <ErrorMessage error={domains.error} prefix="The domains could not be read" />
      <ErrorMessage error={rowAction.error} prefix="The domain could not be changed" />
      {domains.data && list.length === 0 ? <p>No domain yet.</p> : null}
      {list.length > 0 ? (
        <DataTable caption="Domains" columns={['Domain', 'Server', 'Status', 'Policies']} actions>
          {list.map((domain) => (
            <tr key={domain.id}>
              <th scope="row">
                {domain.name} <span class="hint">({domain.id})</span>
              </th>
              <td>
                {domain.ldapServer}
                <br />
                <span class="hint">{domain.userName}</span>
              </td>
              <td>
                {domain.isEnabled ? <StatusBadge status={domain.status} /> : <span class="badge">Disabled</span>}
                {tests[domain.id] ? <p class="hint">{tests[domain.id]!.details}</p> : null}
              </td>
              <td>
                {domain.policies.length === 0
                  ? 'None'
                  : domain.policies
                      .map((p) => `${p.name}${p.isChanges ? '' : ' (not Changes)'}${p.isEnabled ? '' : ' (disabled)'}`)
                      .join(', ')}
              </td>
              <RowActions
                actions={[
                  {
                    label: 'Test connection',
                    name: `Test connection to ${domain.name}`,
                    disabled: rowAction.busy,
                    onClick: () => void test(domain),
                  },
                  {
                    label: domain.isEnabled ? 'Disable' : 'Enable',
                    name: `${domain.isEnabled ? 'Disable' : 'Enable'} ${domain.name}`,
                    disabled: rowAction.busy,
                    onClick: () => void toggle(domain),
                  },
                  { label: 'Edit', name: `Edit ${domain.name}`, onClick: () => setModal({ kind: 'edit', domain }) },
                  {
                    label: 'Remove',
                    name: `Remove ${domain.name}`,
                    danger: true,
                    onClick: () => setModal({ kind: 'remove', domain }),
                  },
                ]}
              />
            </tr>
          ))}
        </DataTable>
      ) : null}
      {modal?.kind === 'edit' ? (
        <EditDialog domain={modal.domain} onClose={close} onSaved={(name) => void done(`${name} is saved.`)} />
      ) : null}
      {modal?.kind === 'remove' ? (
        <ConfirmDialog
          title={`Remove “${modal.domain.name}”?`}
          text="Its policies and outputs are removed too; records already made stay."
          action="Remove domain"
          danger
          onClose={close}
          onConfirm={async () => {
            await api.removeDomain(modal.domain.id);
            await done(`${modal.domain.name} is removed, with its policies and outputs.`);
          }}
        />
      ) : null}
    </Page>
  );
}
