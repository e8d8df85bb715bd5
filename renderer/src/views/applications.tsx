/**
 * Applications: the client applications of the agent API. Authorize one (name and permissions,
 * then its Client ID and Secret shown once with copy buttons), change its permissions, give it a
 * new secret, revoke it after a confirmation.
 */
import { useState } from 'preact/hooks';
import {
  clientNameProblem,
  type ClientApplicationView,
  type ClientCredentials,
} from '../../../shared/client-application.js';
import { PERMISSIONS, PERMISSION_INFO, type Permission } from '../../../shared/permissions.js';
import { api, errorField, errorText } from '../api-client.js';
import { CheckList } from '../components/check-list.js';
import { DataTable } from '../components/data-table.js';
import { CopyButton } from '../components/copy-button.js';
import { ConfirmDialog } from '../components/confirm-dialog.js';
import { Dialog } from '../components/dialog.js';
import { FormButtons } from '../components/form-buttons.js';
import { ErrorMessage } from '../components/error-message.js';
import { Page } from '../components/page.js';
import { RowActions } from '../components/row-actions.js';
import { TextField } from '../components/text-field.js';
import { formatDate, formatRelative, formatTime } from '../format.js';
import { useAction } from '../use-action.js';
import { usePageDialogs } from '../use-page-dialogs.js';
import { useResource } from '../use-resource.js';

type Modal =
  | { kind: 'add' }
  | { kind: 'permissions'; client: ClientApplicationView }
  | { kind: 'secret'; client: ClientApplicationView }
  | { kind: 'revoke'; client: ClientApplicationView }
  | { kind: 'credentials'; name: string; credentials: ClientCredentials; isNew: boolean };

const PERMISSION_OPTIONS = PERMISSIONS.map((p) => ({
  value: p,
  label: PERMISSION_INFO[p].label,
  help: PERMISSION_INFO[p].explanation,
}));

function PermissionBoxes({ value, onChange }: { value: Permission[]; onChange: (next: Permission[]) => void }) {
  return (
    <CheckList legend="Permissions" idPrefix="perm" options={PERMISSION_OPTIONS} value={value} onChange={onChange} />
  );
}

function AddDialog({
  onClose,
  onAdded,
}: {
  onClose: () => void;
  onAdded: (name: string, c: ClientCredentials) => void;
}) {
  const [name, setName] = useState('');
  const [permissions, setPermissions] = useState<Permission[]>([]);
  const [touched, setTouched] = useState(false);
  const action = useAction();
  const nameProblem = touched ? clientNameProblem(name) : null;
  const serverField = errorField(action.error);
  const submit = async (event: Event): Promise<void> => {
    event.preventDefault();
    setTouched(true);
    if (clientNameProblem(name) || permissions.length === 0) return;
    await action.run(async () => {
      const created = await api.addClient(name, permissions);
      onAdded(created.name, created);
    });
  };
  return (
    <Dialog title="Authorize an application" onClose={onClose} wide>
      <form onSubmit={submit} noValidate>
        <TextField
          id="client-name"
          label="Application name"
          value={name}
          autoFocus
          maxLength={100}
          error={nameProblem ?? (serverField === 'name' ? errorText(action.error) : null)}
          onInput={setName}
          onBlur={() => setTouched(true)}
        />
        <PermissionBoxes value={permissions} onChange={setPermissions} />
        {touched && permissions.length === 0 ? (
          <p class="field-error" role="alert">
            Choose at least one permission.
          </p>
        ) : null}
        {serverField !== 'name' ? <ErrorMessage error={action.error} /> : null}
        <FormButtons submit="Authorize" onCancel={onClose} busy={action.busy} />
      </form>
    </Dialog>
  );
}

function CredentialsDialog({
  modal,
  onClose,
}: {
  modal: Extract<Modal, { kind: 'credentials' }>;
  onClose: () => void;
}) {
  const c = modal.credentials;
  return (
    <Dialog
      title={modal.isNew ? `“${modal.name}” is authorized` : `New secret for “${modal.name}”`}
      onClose={onClose}
      wide
    >
      <p role="alert" class="warning-box">
        Copy the secret now: it is shown only this once and cannot be shown again. It can obtain tokens until{' '}
        {formatTime(c.secretExpiresAt)} ({formatRelative(c.secretExpiresAt)}); after that, generate a new one.
      </p>
      <div class="credential">
        <label for="new-client-id">Client ID</label>
        <div class="with-button">
          <input id="new-client-id" class="mono" readOnly value={c.clientId} />
          <CopyButton value={c.clientId} label="Copy client ID" selectId="new-client-id" />
        </div>
      </div>
      <div class="credential">
        <label for="new-client-secret">Client secret</label>
        <div class="with-button">
          <input id="new-client-secret" class="mono" readOnly value={c.clientSecret} />
          <CopyButton value={c.clientSecret} label="Copy client secret" selectId="new-client-secret" />
        </div>
      </div>
      <p class="hint">
        The application sends them to <span class="mono">POST /api/v1/token</span> (grant type{' '}
        <span class="mono">client_credentials</span>) and keeps the refresh token it gets back.
      </p>
      <div class="buttons">
        <button type="button" onClick={onClose}>
          I have copied the secret
        </button>
      </div>
    </Dialog>
  );
}

function PermissionsDialog({
  client,
  onClose,
  onSaved,
}: {
  client: ClientApplicationView;
  onClose: () => void;
  onSaved: () => void;
}) {
  const [permissions, setPermissions] = useState<Permission[]>(client.permissions);
  const action = useAction();
  const submit = async (event: Event): Promise<void> => {
    event.preventDefault();
    if (permissions.length === 0) return;
    if (await action.run(() => api.setPermissions(client.clientId, permissions))) onSaved();
  };
  return (
    <Dialog title={`Permissions of “${client.name}”`} onClose={onClose} wide>
      <form onSubmit={submit}>
        <PermissionBoxes value={permissions} onChange={setPermissions} />
        {permissions.length === 0 ? (
          <p class="field-error" role="alert">
            Keep at least one permission; to take every right away, revoke the application.
          </p>
        ) : null}
        <p class="hint">The change applies to the application's next request; its tokens stay valid.</p>
        <ErrorMessage error={action.error} />
        <FormButtons
          submit="Save permissions"
          onCancel={onClose}
          busy={action.busy}
          disabled={permissions.length === 0}
        />
      </form>
    </Dialog>
  );
}

export function ApplicationsPage() {
  const clients = useResource(() => api.clients(), []);
  const { modal, open: setModal, close, notice, setNotice, done } = usePageDialogs<Modal>(clients.reload);
  const list = clients.data ?? [];
  return (
    <Page
      title="Applications"
      actions={
        <button type="button" onClick={() => setModal({ kind: 'add' })}>
          Authorize application
        </button>
      }
    >
      <p class="intro">
        Applications reach the agent API with a Client ID and Secret and the permissions you give them here.
      </p>
      <p role="status" class="notice">
        {notice}
      </p>
      <ErrorMessage error={clients.error} prefix="The applications could not be read" />
      {clients.data && list.length === 0 ? <p>No application is authorized yet.</p> : null}
      {list.length > 0 ? (
        <DataTable caption="Authorized applications" columns={['Name', 'Permissions', 'Secret', 'Authorized']} actions>
          {list.map((client) => (
            <tr key={client.clientId}>
              <th scope="row">
                {client.name}
                <div class="mono hint id">{client.clientId}</div>
              </th>
              <td>{client.permissions.map((p) => PERMISSION_INFO[p].label).join(', ')}</td>
              <td>
                {client.secretExpired ? (
                  <span class="badge warning">expired {formatRelative(client.secretExpiresAt)}</span>
                ) : (
                  <span>expires {formatRelative(client.secretExpiresAt)}</span>
                )}
                <div class="hint">{formatTime(client.secretExpiresAt)}</div>
              </td>
              <td class="nowrap">{formatDate(client.createdAt)}</td>
              <RowActions
                actions={[
                  {
                    label: 'Permissions',
                    name: `Change permissions of ${client.name}`,
                    onClick: () => setModal({ kind: 'permissions', client }),
                  },
                  {
                    label: 'New secret',
                    name: `Generate a new secret for ${client.name}`,
                    onClick: () => setModal({ kind: 'secret', client }),
                  },
                  {
                    label: 'Revoke',
                    name: `Revoke ${client.name}`,
                    danger: true,
                    onClick: () => setModal({ kind: 'revoke', client }),
                  },
                ]}
              />
            </tr>
          ))}
        </DataTable>
      ) : null}

      {modal?.kind === 'add' ? (
        <AddDialog
          onClose={close}
          onAdded={(name, credentials) => {
            setModal({ kind: 'credentials', name, credentials, isNew: true });
            setNotice(`“${name}” is authorized.`);
            void clients.reload();
          }}
        />
      ) : null}
      {modal?.kind === 'credentials' ? <CredentialsDialog modal={modal} onClose={close} /> : null}
      {modal?.kind === 'permissions' ? (
        <PermissionsDialog
          client={modal.client}
          onClose={close}
          onSaved={() => void done(`The permissions of “${modal.client.name}” are saved.`)}
        />
      ) : null}
      {modal?.kind === 'secret' ? (
        <ConfirmDialog
          title={`New secret for “${modal.client.name}”?`}
          text="The current secret stops working at once, and so do all the tokens already issued with it: the application must sign in again with the new secret."
          action="Generate new secret"
          onClose={close}
          onConfirm={async () => {
            const credentials = await api.regenerateSecret(modal.client.clientId);
            setModal({ kind: 'credentials', name: modal.client.name, credentials, isNew: false });
            void clients.reload();
          }}
        />
      ) : null}
      {modal?.kind === 'revoke' ? (
        <ConfirmDialog
          title={`Revoke “${modal.client.name}”?`}
          text="The application loses its access at once: its secret and all its tokens stop working. This cannot be undone; to let it in again, authorize it anew."
          action="Revoke access"
          danger
          onClose={close}
          onConfirm={async () => {
            await api.revokeClient(modal.client.clientId);
            await done(`“${modal.client.name}” is revoked.`);
          }}
        />
      ) : null}
    </Page>
  );
}
