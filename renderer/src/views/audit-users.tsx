/**
 * Audit users: the accounts SIEM collectors use on the audit API (HTTP Basic). Add one (name,
 * roles, password twice), change its password or roles, remove it after a confirmation.
 */
import { useState } from 'preact/hooks';
import { AUDIT_ROLE_INFO, AUDIT_USER_ROLES, type AuditUserSummary } from '../../../shared/console-api.js';
import { api, errorField, errorText } from '../api-client.js';
import { CheckList } from '../components/check-list.js';
import { DataTable } from '../components/data-table.js';
import { ConfirmDialog } from '../components/confirm-dialog.js';
import { Dialog } from '../components/dialog.js';
import { FormButtons } from '../components/form-buttons.js';
import { ErrorMessage } from '../components/error-message.js';
import { Page } from '../components/page.js';
import { RowActions } from '../components/row-actions.js';
import { TextField } from '../components/text-field.js';
import { formatDate } from '../format.js';
import { useAction } from '../use-action.js';
import { usePageDialogs } from '../use-page-dialogs.js';
import { useResource } from '../use-resource.js';

const MIN_PASSWORD = 8;

type Modal =
  | { kind: 'add' }
  | { kind: 'password'; user: AuditUserSummary }
  | { kind: 'roles'; user: AuditUserSummary }
  | { kind: 'remove'; user: AuditUserSummary };

const ROLE_OPTIONS = AUDIT_USER_ROLES.map((role) => ({
  value: role,
  label: role === 'reader' ? 'Reader' : 'Contributor',
  help: AUDIT_ROLE_INFO[role],
}));

function RoleBoxes({ value, onChange }: { value: string[]; onChange: (next: string[]) => void }) {
  return <CheckList legend="Roles" idPrefix="role" options={ROLE_OPTIONS} value={value} onChange={onChange} />;
}

/** Two password inputs; returns the problem to show, or null. */
function passwordProblem(password: string, again: string): string | null {
  if (password.length < MIN_PASSWORD) return `The password needs at least ${MIN_PASSWORD} characters.`;
  if (password !== again) return 'The two passwords differ.';
  return null;
}

function PasswordFields(props: {
  password: string;
  again: string;
  setPassword: (v: string) => void;
  setAgain: (v: string) => void;
  problem: string | null;
}) {
  return (
    <>
      <TextField
        id="user-password"
        label="Password"
        type="password"
        value={props.password}
        invalid={props.problem !== null}
        onInput={props.setPassword}
      />
      <TextField
        id="user-password-again"
        label="Password again"
        type="password"
        value={props.again}
        error={props.problem}
        onInput={props.setAgain}
      />
    </>
  );
}

function AddDialog({ onClose, onAdded }: { onClose: () => void; onAdded: (name: string) => void }) {
  const [name, setName] = useState('');
  const [roles, setRoles] = useState<string[]>(['reader']);
  const [password, setPassword] = useState('');
  const [again, setAgain] = useState('');
  const [submitted, setSubmitted] = useState(false);
  const action = useAction();
  const problem = submitted ? passwordProblem(password, again) : null;
  const field = errorField(action.error);
  const submit = async (event: Event): Promise<void> => {
    event.preventDefault();
    setSubmitted(true);
    if (passwordProblem(password, again) || roles.length === 0 || name.trim() === '') return;
    await action.run(async () => {
      const user = await api.addAuditUser(name, roles, password);
      onAdded(user.name);
    });
  };
  return (
    <Dialog title="Add an audit user" onClose={onClose} wide>
      <form onSubmit={submit} noValidate>
        <TextField
          id="user-name"
          label="User name"
          value={name}
          autoFocus
          error={
            field === 'name'
              ? errorText(action.error)
              : submitted && name.trim() === ''
                ? 'Give the user a name.'
                : null
          }
          onInput={setName}
        />
        <RoleBoxes value={roles} onChange={setRoles} />
        {submitted && roles.length === 0 ? <p class="field-error">Choose at least one role.</p> : null}
        <PasswordFields
          password={password}
          again={again}
          setPassword={setPassword}
          setAgain={setAgain}
          problem={problem}
        />
        {field !== 'name' ? <ErrorMessage error={action.error} /> : null}
        <FormButtons submit="Add user" onCancel={onClose} busy={action.busy} />
      </form>
    </Dialog>
  );
}

function PasswordDialog({
  user,
  onClose,
  onSaved,
}: {
  user: AuditUserSummary;
  onClose: () => void;
  onSaved: () => void;
}) {
  const [password, setPassword] = useState('');
  const [again, setAgain] = useState('');
  const [submitted, setSubmitted] = useState(false);
  const action = useAction();
  const problem = submitted ? passwordProblem(password, again) : null;
  const submit = async (event: Event): Promise<void> => {
    event.preventDefault();
    setSubmitted(true);
    if (passwordProblem(password, again)) return;
    if (await action.run(() => api.setAuditUserPassword(user.name, password))) onSaved();
  };
  return (
    <Dialog title={`New password for “${user.name}”`} onClose={onClose}>
      <form onSubmit={submit} noValidate>
        <PasswordFields
          password={password}
          again={again}
          setPassword={setPassword}
          setAgain={setAgain}
          problem={problem}
        />
        <p class="hint">The old password stops working at once.</p>
        <ErrorMessage error={action.error} />
        <FormButtons submit="Change password" onCancel={onClose} busy={action.busy} />
      </form>
    </Dialog>
  );
}

function RolesDialog({ user, onClose, onSaved }: { user: AuditUserSummary; onClose: () => void; onSaved: () => void }) {
  const [roles, setRoles] = useState<string[]>(user.roles);
  const action = useAction();
  const submit = async (event: Event): Promise<void> => {
    event.preventDefault();
    if (roles.length === 0) return;
    if (await action.run(() => api.setAuditUserRoles(user.name, roles))) onSaved();
  };
  return (
    <Dialog title={`Roles of “${user.name}”`} onClose={onClose}>
      <form onSubmit={submit}>
        <RoleBoxes value={roles} onChange={setRoles} />
        {roles.length === 0 ? (
          <p class="field-error">Keep at least one role; to take every right away, remove the user.</p>
        ) : null}
        <ErrorMessage error={action.error} />
        <FormButtons submit="Save roles" onCancel={onClose} busy={action.busy} disabled={roles.length === 0} />
      </form>
    </Dialog>
  );
}

export function AuditUsersPage() {
  const users = useResource(() => api.auditUsers(), []);
  const { modal, open: setModal, close, notice, done } = usePageDialogs<Modal>(users.reload);
  const list = users.data ?? [];
  return (
    <Page
      title="Audit users"
      actions={
        <button type="button" onClick={() => setModal({ kind: 'add' })}>
          Add user
        </button>
      }
    >
      <p class="intro">
        SIEM collectors and scripts sign in to the audit API with these names and passwords (HTTP Basic).
      </p>
      <p role="status" class="notice">
        {notice}
      </p>
      <ErrorMessage error={users.error} prefix="The audit users could not be read" />
      {users.data && list.length === 0 ? <p>There is no audit user yet: nobody can use the audit API.</p> : null}
      {list.length > 0 ? (
        <DataTable caption="Audit users" columns={['Name', 'Roles', 'Added', 'Password changed']} actions>
          {list.map((user) => (
            <tr key={user.name}>
              <th scope="row">{user.name}</th>
              <td>{user.roles.join(', ')}</td>
              <td class="nowrap">{formatDate(user.createdAt)}</td>
              <td class="nowrap">{formatDate(user.passwordChangedAt)}</td>
              <RowActions
                actions={[
                  {
                    label: 'Roles',
                    name: `Change roles of ${user.name}`,
                    onClick: () => setModal({ kind: 'roles', user }),
                  },
                  {
                    label: 'Password',
                    name: `Change password of ${user.name}`,
                    onClick: () => setModal({ kind: 'password', user }),
                  },
                  {
                    label: 'Remove',
                    name: `Remove ${user.name}`,
                    danger: true,
                    onClick: () => setModal({ kind: 'remove', user }),
                  },
                ]}
              />
            </tr>
          ))}
        </DataTable>
      ) : null}
      {modal?.kind === 'add' ? (
        <AddDialog onClose={close} onAdded={(name) => void done(`“${name}” is added.`)} />
      ) : null}
      {modal?.kind === 'password' ? (
        <PasswordDialog
          user={modal.user}
          onClose={close}
          onSaved={() => void done(`The password of “${modal.user.name}” is changed.`)}
        />
      ) : null}
      {modal?.kind === 'roles' ? (
        <RolesDialog
          user={modal.user}
          onClose={close}
          onSaved={() => void done(`The roles of “${modal.user.name}” are saved.`)}
        />
      ) : null}
      {modal?.kind === 'remove' ? (
        <ConfirmDialog
          title={`Remove “${modal.user.name}”?`}
          text="The user can no longer sign in to the audit API. This cannot be undone."
          action="Remove user"
          danger
          onClose={close}
          onConfirm={async () => {
            await api.removeAuditUser(modal.user.name);
            await done(`“${modal.user.name}” is removed.`);
          }}
        />
      ) : null}
    </Page>
  );
}
