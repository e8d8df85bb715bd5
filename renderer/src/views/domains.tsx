/**
 * Directory domains (docs/directory.md): each domain with its status and Changes policies; add
 * or edit one (server, bind DN, password, base DN, polling interval, TLS), test its connection,
 * enable or disable it, remove it after a confirmation. The password is sent, never shown.
 */
import { useState } from 'preact/hooks';
import type { DomainRequest, DomainSummary, DomainTestResult } from '../../../shared/console-api.js';
import { api, ConsoleApiError, errorText } from '../api-client.js';
import { ConfirmDialog } from '../components/confirm-dialog.js';
import { Dialog } from '../components/dialog.js';
import { ErrorMessage } from '../components/error-message.js';
import { Page } from '../components/page.js';
import { StatusBadge } from '../components/status-badge.js';
import { useResource } from '../use-resource.js';

type Modal = { kind: 'edit'; domain: DomainSummary | null } | { kind: 'remove'; domain: DomainSummary };

function requestOf(domain: DomainSummary): DomainRequest {
  const { name, ldapServer, userName, baseDn, pollingIntervalSeconds, tls, caFile, isEnabled, comment } = domain;
  return { name, ldapServer, userName, baseDn, pollingIntervalSeconds, tls, caFile, isEnabled, comment };
}

function Field(props: {
  id: string;
  label: string;
  value: string;
  onInput: (v: string) => void;
  error?: string | undefined;
  type?: 'text' | 'password' | 'number';
  hint?: string;
}) {
  return (
    <>
      <label for={props.id}>{props.label}</label>
      <input
        id={props.id}
        type={(props.type ?? 'text') as 'text'}
        value={props.value}
        autoComplete={props.type === 'password' ? 'new-password' : 'off'}
        aria-invalid={props.error ? 'true' : undefined}
        aria-describedby={`${props.id}-error`}
        onInput={(e) => props.onInput((e.currentTarget as HTMLInputElement).value)}
      />
      {props.hint ? <p class="hint">{props.hint}</p> : null}
      <p id={`${props.id}-error`} class="field-error">
        {props.error ?? ''}
      </p>
    </>
  );
}

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
  const [error, setError] = useState<unknown>(null);
  const field = error instanceof ConsoleApiError ? error.field : undefined;
  const set = (key: keyof DomainRequest) => (value: string) => setForm({ ...form, [key]: value });
  const fieldError = (name: string): string | undefined => (field === name ? errorText(error) : undefined);
  const submit = async (event: Event): Promise<void> => {
    event.preventDefault();
    const body: DomainRequest = { ...form, pollingIntervalSeconds: Number(form.pollingIntervalSeconds) };
    if (password !== '') body.password = password;
    try {
      const saved = domain ? await api.saveDomain(domain.id, body) : await api.addDomain(body);
      onSaved(saved.name);
    } catch (caught) {
      setError(caught);
    }
  };
  return (
    <Dialog title={domain ? `Domain “${domain.name}”` : 'Add a domain'} onClose={onClose} wide>
      <form onSubmit={submit} noValidate>
        <Field
          id="domain-name"
          label="Domain name"
          value={form.name}
          onInput={set('name')}
          error={fieldError('name')}
        />
        <Field
          id="domain-server"
          label="LDAP server"
          value={form.ldapServer}
          onInput={set('ldapServer')}
          error={fieldError('ldapServer')}
          hint="ldaps://host:636 or ldap://host:389"
        />
        <Field
          id="domain-user"
          label="Bind DN"
          value={form.userName}
          onInput={set('userName')}
          error={fieldError('userName')}
        />
        <Field
          id="domain-password"
          label="Password"
          type="password"
          value={password}
          onInput={setPassword}
          error={fieldError('password')}
          {...(domain ? { hint: 'Leave empty to keep the stored password.' } : {})}
        />
        <Field
          id="domain-base"
          label="Base DN"
          value={form.baseDn ?? ''}
          onInput={set('baseDn')}
          error={fieldError('baseDn')}
          hint="Empty: the server’s default naming context."
        />
        <Field
          id="domain-interval"
          label="Polling interval (seconds)"
          type="number"
          value={String(form.pollingIntervalSeconds ?? 5)}
          onInput={set('pollingIntervalSeconds')}
          error={fieldError('pollingIntervalSeconds')}
        />
        <label for="domain-tls">TLS on ldap://</label>
        <select
          id="domain-tls"
          value={form.tls}
          onChange={(e) =>
            setForm({ ...form, tls: (e.currentTarget as HTMLSelectElement).value as 'starttls' | 'none' })
          }
        >
          <option value="starttls">StartTLS when the server offers it</option>
          <option value="none">None</option>
        </select>
        <Field
          id="domain-ca"
          label="CA file to trust"
          value={form.caFile ?? ''}
          onInput={set('caFile')}
          error={fieldError('caFile')}
          hint="A PEM file; empty: the system’s CAs."
        />
        {error &&
        !['name', 'ldapServer', 'userName', 'password', 'baseDn', 'pollingIntervalSeconds', 'caFile'].includes(
          field ?? '',
        ) ? (
          <ErrorMessage error={error} />
        ) : null}
        <div class="buttons">
          <button type="button" class="secondary" onClick={onClose}>
            Cancel
          </button>
          <button type="submit">{domain ? 'Save' : 'Add domain'}</button>
        </div>
      </form>
    </Dialog>
  );
}

export function DomainsPage() {
  const domains = useResource(() => api.domains(), []);
  const [modal, setModal] = useState<Modal | null>(null);
  const [notice, setNotice] = useState('');
  const [tests, setTests] = useState<Record<string, DomainTestResult>>({});
  const done = async (message: string): Promise<void> => {
    setModal(null);
    await domains.reload();
    setNotice(message);
  };
  const test = async (domain: DomainSummary): Promise<void> => {
    setNotice(`Testing the connection to ${domain.name}…`);
    const result = await api.testDomain(domain.id);
    setTests({ ...tests, [domain.id]: result });
    setNotice(`${domain.name}: ${result.summary}`);
  };
  const toggle = async (domain: DomainSummary): Promise<void> => {
    await api.saveDomain(domain.id, { ...requestOf(domain), isEnabled: !domain.isEnabled });
    await done(`${domain.name} is ${domain.isEnabled ? 'disabled' : 'enabled'}.`);
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
      {domains.data && list.length === 0 ? <p>No domain yet.</p> : null}
      {list.length > 0 ? (
        <div class="table-wrap">
          <table>
            <caption class="visually-hidden">Domains</caption>
            <thead>
              <tr>
                <th scope="col">Domain</th>
                <th scope="col">Server</th>
                <th scope="col">Status</th>
                <th scope="col">Policies</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
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
                          .map(
                            (p) => `${p.name}${p.isChanges ? '' : ' (not Changes)'}${p.isEnabled ? '' : ' (disabled)'}`,
                          )
                          .join(', ')}
                  </td>
                  <td class="actions">
                    <button type="button" class="secondary" onClick={() => void test(domain)}>
                      Test connection
                    </button>{' '}
                    <button type="button" class="secondary" onClick={() => void toggle(domain)}>
                      {domain.isEnabled ? 'Disable' : 'Enable'}
                    </button>{' '}
                    <button type="button" class="secondary" onClick={() => setModal({ kind: 'edit', domain })}>
                      Edit
                    </button>{' '}
                    <button type="button" class="danger" onClick={() => setModal({ kind: 'remove', domain })}>
                      Remove
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {modal?.kind === 'edit' ? (
        <EditDialog
          domain={modal.domain}
          onClose={() => setModal(null)}
          onSaved={(name) => void done(`${name} is saved.`)}
        />
      ) : null}
      {modal?.kind === 'remove' ? (
        <ConfirmDialog
          title={`Remove “${modal.domain.name}”?`}
          text="Its policies and outputs are removed too; records already made stay."
          action="Remove domain"
          danger
          onClose={() => setModal(null)}
          onConfirm={async () => {
            await api.removeDomain(modal.domain.id);
            await done(`${modal.domain.name} is removed, with its policies and outputs.`);
          }}
        />
      ) : null}
    </Page>
  );
}
