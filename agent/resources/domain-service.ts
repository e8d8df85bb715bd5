/**
 * Directory domains the agent knows: a name, the LDAP server to read it from, the account to
 * read it with (the password is accepted and never shown), where and how often to read, enabled
 * or not (docs/agent-api.md, docs/directory.md). The agent API only reads them; the console and
 * `vigil domain` add, change and remove them through this service. Removing a domain removes its outputs and policies. No HTTP here.
 */
import type { ChangeRecorder } from '../pipeline/change-recorder.js';
import type { DomainSettings } from '../config/directory-schema.js';
import type { SettingsStore } from '../config/settings-store.js';
import type { DomainPasswords } from '../config/domain-passwords.js';
import { changeDetails } from './change-details.js';
import { ServiceError, takenBy } from '../util/service-error.js';
import { placed, withResourceProblems, type Placement } from './settings-problems.js';

export const DOMAIN_OBJECT_TYPE = 'Domain';
const SECRETS = ['password'];

export interface DomainFields {
  /** The NetBIOS-style id (`CORP`); derived from the name when absent. Fixed once created. */
  id?: string | undefined;
  name: string;
  ldapServer: string;
  userName?: string | undefined;
  /** Write-only: kept in an owner-only file under secrets/, never in settings.json, never returned. */
  password?: string | undefined;
  isEnabled?: boolean | undefined;
  comment?: string | undefined;
  baseDn?: string | undefined;
  pollingIntervalSeconds?: number | undefined;
  tls?: DomainSettings['tls'] | undefined;
  caFile?: string | undefined;
}

export type DomainState = Omit<DomainSettings, 'id'>;

function withoutId(domain: DomainSettings): DomainState {
  const copy: Partial<DomainSettings> = { ...domain };
  delete copy.id;
  return copy as DomainState;
}

function notFound(id: string): ServiceError {
  return new ServiceError('not_found', `there is no domain with id "${id}"`, 'id');
}

/** `corp.example.com` → `CORP` (NetBIOS names are at most 15 characters). */
export function domainIdFromName(name: string, taken: ReadonlySet<string>): string {
  const base =
    (name.split('.')[0] ?? '')
      .toUpperCase()
      .replace(/[^A-Z0-9-]/g, '')
      .slice(0, 15) || 'DOMAIN';
  let id = base;
  for (let n = 2; taken.has(id); n++) id = `${base}-${n}`;
  return id;
}

export interface DomainServiceDeps {
  settings: SettingsStore;
  recorder: ChangeRecorder;
  passwords: DomainPasswords;
}

/** The fields without the password, which settings.json never holds. */
function withoutPassword<T extends { password?: string | undefined }>(fields: T): Omit<T, 'password'> {
  const copy = { ...fields };
  delete copy.password;
  return copy;
}

/** Change details of a password show only that it changed (changeDetails masks secrets). */
function withPassword(state: DomainState, password: string | null): DomainState {
  return password === null ? state : { ...state, password };
}

export class DomainService {
  constructor(private readonly deps: DomainServiceDeps) {}

  list(): readonly DomainSettings[] {
    return this.deps.settings.current.domains;
  }

  find(id: string): DomainSettings | undefined {
    return this.deps.settings.current.domains.find((d) => d.id === id);
  }

  /** Whether a bind password is stored for the domain (never the password itself). */
  async hasPassword(id: string): Promise<boolean> {
    return (await this.deps.passwords.get(id)) !== null;
  }

  /** The stored bind password, for the agent's own connection test only: never returned by an API. */
  bindPassword(id: string): Promise<string | null> {
    return this.deps.passwords.get(id);
  }

  /** The domain this agent reads: the first enabled one, in settings order (see docs/agent-api.md). */
  primary(): DomainSettings | undefined {
    return this.deps.settings.current.domains.find((d) => d.isEnabled);
  }

  async add(fields: DomainFields, actor: string): Promise<DomainSettings> {
    let id = '';
    const placements: Placement[] = [];
    const next = await withResourceProblems(
      () =>
        this.deps.settings.update((draft) => {
          const taken = new Set(draft.domains.map((d) => d.id));
          if (fields.id !== undefined && taken.has(fields.id)) {
            throw takenBy('id', `another domain already has id "${fields.id}"`, fields.id);
          }
          const sameName =
            typeof fields.name === 'string'
              ? draft.domains.find((d) => d.name.toLowerCase() === fields.name.trim().toLowerCase())
              : undefined;
          if (sameName)
            throw takenBy('name', `the domain "${fields.name}" is already known (id ${sameName.id})`, sameName.id);
          id = fields.id ?? domainIdFromName(typeof fields.name === 'string' ? fields.name : '', taken);
          placements.push(placed('domains', draft.domains.length));
          draft.domains.push({ ...withoutPassword(fields), id } as DomainSettings);
        }),
      placements,
    );
    const domain = next.domains.find((d) => d.id === id)!;
    if (fields.password !== undefined) await this.deps.passwords.set(id, fields.password);
    this.deps.recorder.recordChange({
      actor,
      action: 'Added',
      objectType: DOMAIN_OBJECT_TYPE,
      what: domain.name,
      id: domain.id,
      details: changeDetails(null, withPassword(withoutId(domain), fields.password ?? null), { secrets: SECRETS }),
    });
    return domain;
  }

  async update(
    id: string,
    change: (current: DomainState) => Omit<DomainFields, 'id'>,
    actor: string,
  ): Promise<DomainSettings> {
    let before: DomainSettings | undefined;
    let password: string | undefined;
    const placements: Placement[] = [];
    const next = await withResourceProblems(
      () =>
        this.deps.settings.update((draft) => {
          const index = draft.domains.findIndex((d) => d.id === id);
          if (index < 0) throw notFound(id);
          before = draft.domains[index]!;
          placements.push(placed('domains', index));
          const fields = change(withoutId(before));
          password = fields.password;
          draft.domains[index] = { ...withoutPassword(fields), id } as DomainSettings;
        }),
      placements,
    );
    const domain = next.domains.find((d) => d.id === id)!;
    // A change that leaves the password out keeps the stored one.
    const previousPassword = await this.deps.passwords.get(id);
    if (password !== undefined) await this.deps.passwords.set(id, password);
    const details = changeDetails(
      withPassword(withoutId(before!), previousPassword),
      withPassword(withoutId(domain), password ?? previousPassword),
      { secrets: SECRETS },
    );
    if (details.length > 0) {
      this.deps.recorder.recordChange({
        actor,
        action: 'Modified',
        objectType: DOMAIN_OBJECT_TYPE,
        what: domain.name,
        id: domain.id,
        details,
      });
    }
    return domain;
  }

  setEnabled(id: string, enabled: boolean, actor: string): Promise<DomainSettings> {
    return this.update(id, (domain) => ({ ...domain, isEnabled: enabled }), actor);
  }

  async remove(id: string, actor: string): Promise<void> {
    let removed: DomainSettings | undefined;
    await this.deps.settings.update((draft) => {
      removed = draft.domains.find((d) => d.id === id);
      if (!removed) throw notFound(id);
      draft.domains = draft.domains.filter((d) => d.id !== id);
      draft.domainOutputs = draft.domainOutputs.filter((o) => o.domainId !== id);
      draft.policies = draft.policies.filter((p) => p.domainId !== id);
    });
    await this.deps.passwords.remove(id);
    this.deps.recorder.recordChange({
      actor,
      action: 'Removed',
      objectType: DOMAIN_OBJECT_TYPE,
      what: removed!.name,
      id: removed!.id,
      details: changeDetails(withoutId(removed!), null, { secrets: SECRETS }),
    });
  }
}
