/**
 * Audit users: the accounts SIEM collectors use on the audit API (HTTP Basic). Add one (name,
 * roles, password twice), change its password or roles, remove it after a confirmation.
 */
import { useState } from 'preact/hooks';
import { AUDIT_ROLE_INFO, AUDIT_USER_ROLES, type AuditUserSummary } from '../../../shared/console-api.js';
import { api, ConsoleApiError, errorText } from '../api-client.js';
import { ConfirmDialog } from '../components/confirm-dialog.js';
import { Dialog } from '../components/dialog.js';
import { ErrorMessage } from '../components/error-message.js';
import { Page } from '../components/page.js';
import { formatDate } from '../format.js';
import { useResource } from '../use-resource.js';

const MIN_PASSWORD = 8;

type Modal =
  | { kind: 'add' }
  | { kind: 'password'; user: AuditUserSummary }
  | { kind: 'roles'; user: AuditUserSummary }
  | { kind: 'remove'; user: AuditUserSummary };

function RoleBoxes({ value, onChange }: { value: string[]; onChange: (next: string[]) => void }) {
  return (
    <fieldset>
      <legend>Roles</legend>
      {AUDIT_USER_ROLES.map((role) => (
        <div class="check" key={role}>
          <input
            type="checkbox"
            id={`role-${role}`}
            checked={value.includes(role)}
            aria-describedby={`role-${role}-help`}
            onChange={(e) =>
              onChange(
                (e.currentTarget as HTMLInputElement).checked ? [...value, role] : value.filter((r) => r !== role),
              )
            }
          />
          <label for={`role-${role}`}>{role === 'reader' ? 'Reader' : 'Contributor'}</label>
          <p id={`role-${role}-help`} class="hint">
            {AUDIT_ROLE_INFO[role]}
          </p>
        </div>
      ))}
    </fieldset>
  );
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
      <label for="user-password">Password</label>
      <input
        id="user-password"
        type="password"
        autoComplete="new-password"
        value={props.password}
        aria-invalid={props.problem ? 'true' : undefined}
        aria-describedby="user-password-error"
        onInput={(e) => props.setPassword((e.currentTarget as HTMLInputElement).value)}
      />
      <label for="user-password-again">Password again</label>
      <input
        id="user-password-again"
        type="password"
        autoComplete="new-password"
        value={props.again}
        aria-invalid={props.problem ? 'true' : undefined}
        aria-describedby="user-password-error"
        onInput={(e) => props.setAgain((e.currentTarget as HTMLInputElement).value)}
      />
      <p id="user-password-error" class="field-error">
        {props.problem ?? ''}
      </p>
    </>
  );
}

function AddDialog({ onClose, onAdded }: { onClose: () => void; onAdded: (name: string) => void }) {
  const [name, setName] = useState('');
  const [roles, setRoles] = useState<string[]>(['reader']);
  const [password, setPassword] = useState('');
  const [again, setAgain] = useState('');
  const [submitted, setSubmitted] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const problem = submitted ? passwordProblem(password, again) : null;
  const field = error instanceof ConsoleApiError ? error.field : undefined;
  const submit = async (event: Event): Promise<void> => {
    event.preventDefault();
    setSubmitted(true);
    if (passwordProblem(password, again) || roles.length === 0 || name.trim() === '') return;
    setBusy(true);
    try {
      const user = await api.addAuditUser(name, roles, password);
      onAdded(user.name);
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Dialog title="Add an audit user" onClose={onClose} wide>
      <form onSubmit={submit} noValidate>
        <label for="user-name">User name</label>
        <input
          id="user-name"
          value={name}
          autoFocus
          autoComplete="off"
          aria-invalid={field === 'name' || (submitted && name.trim() === '') ? 'true' : undefined}
          aria-describedby="user-name-error"
          onInput={(e) => setName((e.currentTarget as HTMLInputElement).value)}
        />
        <p id="user-name-error" class="field-error">
          {field === 'name' ? errorText(error) : submitted && name.trim() === '' ? 'Give the user a name.' : ''}
        </p>
        <RoleBoxes value={roles} onChange={setRoles} />
        {submitted && roles.length === 0 ? <p class="field-error">Choose at least one role.</p> : null}
        <PasswordFields
          password={password}
          again={again}
          setPassword={setPassword}
          setAgain={setAgain}
          problem={problem}
        />
        {error && field !== 'name' ? <ErrorMessage error={error} /> : null}
        <div class="buttons">
          <button type="button" class="secondary" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" disabled={busy}>
            Add user
          </button>
        </div>
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
  const [error, setError] = useState<unknown>(null);
  const problem = submitted ? passwordProblem(password, again) : null;
  const submit = async (event: Event): Promise<void> => {
    event.preventDefault();
    setSubmitted(true);
    if (passwordProblem(password, again)) return;
    try {
      await api.setAuditUserPassword(user.name, password);
      onSaved();
    } catch (caught) {
      setError(caught);
    }
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
        <ErrorMessage error={error} />
        <div class="buttons">
          <button type="button" class="secondary" onClick={onClose}>
            Cancel
          </button>
          <button type="submit">Change password</button>
        </div>
      </form>
    </Dialog>
  );
}

function RolesDialog({ user, onClose, onSaved }: { user: AuditUserSummary; onClose: () => void; onSaved: () => void }) {
  const [roles, setRoles] = useState<string[]>(user.roles);
  const [error, setError] = useState<unknown>(null);
  const submit = async (event: Event): Promise<void> => {
    event.preventDefault();
    try {
      await api.setAuditUserRoles(user.name, roles);
      onSaved();
    } catch (caught) {
      setError(caught);
    }
  };
  return (
    <Dialog title={`Roles of “${user.name}”`} onClose={onClose}>
      <form onSubmit={submit}>
        <RoleBoxes value={roles} onChange={setRoles} />
        {roles.length === 0 ? (
          <p class="field-error">Keep at least one role; to take every right away, remove the user.</p>
        ) : null}
        <ErrorMessage error={error} />
        <div class="buttons">
          <button type="button" class="secondary" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" disabled={roles.length === 0}>
            Save roles
          </button>
        </div>
      </form>
    </Dialog>
  );
}

export function AuditUsersPage() {
  const users = useResource(() => api.auditUsers(), []);
  const [modal, setModal] = useState<Modal | null>(null);
  const [notice, setNotice] = useState('');
  const done = async (message: string): Promise<void> => {
    setModal(null);
    await users.reload();
    setNotice(message);
  };
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
        <div class="table-wrap">
          <table>
            <caption class="visually-hidden">Audit users</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Roles</th>
                <th scope="col">Added</th>
                <th scope="col">Password changed</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.map((user) => (
                <tr key={user.name}>
                  <th scope="row">{user.name}</th>
                  <td>{user.roles.join(', ')}</td>
                  <td class="nowrap">{formatDate(user.createdAt)}</td>
                  <td class="nowrap">{formatDate(user.passwordChangedAt)}</td>
                  <td class="row-actions">
                    <button
                      type="button"
                      class="secondary small"
                      onClick={() => setModal({ kind: 'roles', user })}
                      aria-label={`Change roles of ${user.name}`}
                    >
                      Roles
                    </button>
                    <button
                      type="button"
                      class="secondary small"
                      onClick={() => setModal({ kind: 'password', user })}
                      aria-label={`Change password of ${user.name}`}
                    >
                      Password
                    </button>
                    <button
                      type="button"
                      class="danger small"
                      onClick={() => setModal({ kind: 'remove', user })}
                      aria-label={`Remove ${user.name}`}
                    >
                      Remove
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {modal?.kind === 'add' ? (
        <AddDialog onClose={() => setModal(null)} onAdded={(name) => void done(`“${name}” is added.`)} />
      ) : null}
      {modal?.kind === 'password' ? (
        <PasswordDialog
          user={modal.user}
          onClose={() => setModal(null)}
          onSaved={() => void done(`The password of “${modal.user.name}” is changed.`)}
        />
      ) : null}
      {modal?.kind === 'roles' ? (
        <RolesDialog
          user={modal.user}
          onClose={() => setModal(null)}
          onSaved={() => void done(`The roles of “${modal.user.name}” are saved.`)}
        />
      ) : null}
      {modal?.kind === 'remove' ? (
        <ConfirmDialog
          title={`Remove “${modal.user.name}”?`}
          text="The user can no longer sign in to the audit API. This cannot be undone."
          action="Remove user"
          danger
          onClose={() => setModal(null)}
          onConfirm={async () => {
            await api.removeAuditUser(modal.user.name);
            await done(`“${modal.user.name}” is removed.`);
          }}
        />
      ) : null}
    </Page>
  );
}
