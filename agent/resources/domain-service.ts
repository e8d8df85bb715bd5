/**
 * Directory domains the agent knows: a name, the LDAP server to read it from, the account to
 * read it with (the password is accepted and never shown), enabled or not (agent-api.md
 * §1.6.2). The agent API only reads them; the console adds, changes and removes them through
 * this service. Removing a domain removes its outputs and policies. No HTTP here.
 */
import type { ChangeRecorder } from '../change-log.js';
import type { DomainSettings } from '../config/directory-schema.js';
import type { SettingsStore } from '../config/settings-store.js';
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
  /** Write-only: stored for reading the directory, never returned. */
  password?: string | undefined;
  enabled?: boolean | undefined;
  comment?: string | undefined;
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
}

export class DomainService {
  constructor(private readonly deps: DomainServiceDeps) {}

  list(): readonly DomainSettings[] {
    return this.deps.settings.current.domains;
  }

  find(id: string): DomainSettings | undefined {
    return this.deps.settings.current.domains.find((d) => d.id === id);
  }

  /** The domain this agent reads: the first enabled one, in settings order (see docs/agent-api.md). */
  primary(): DomainSettings | undefined {
    return this.deps.settings.current.domains.find((d) => d.enabled);
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
          draft.domains.push({ ...fields, id } as DomainSettings);
        }),
      placements,
    );
    const domain = next.domains.find((d) => d.id === id)!;
    this.deps.recorder.recordChange({
      actor,
      action: 'Added',
      objectType: DOMAIN_OBJECT_TYPE,
      what: domain.name,
      id: domain.id,
      details: changeDetails(null, withoutId(domain), { secrets: SECRETS }),
    });
    return domain;
  }

  async update(
    id: string,
    change: (current: DomainState) => Omit<DomainFields, 'id'>,
    actor: string,
  ): Promise<DomainSettings> {
    let before: DomainSettings | undefined;
    const placements: Placement[] = [];
    const next = await withResourceProblems(
      () =>
        this.deps.settings.update((draft) => {
          const index = draft.domains.findIndex((d) => d.id === id);
          if (index < 0) throw notFound(id);
          before = draft.domains[index]!;
          placements.push(placed('domains', index));
          draft.domains[index] = { ...change(withoutId(before)), id } as DomainSettings;
        }),
      placements,
    );
    const domain = next.domains.find((d) => d.id === id)!;
    const details = changeDetails(withoutId(before!), withoutId(domain), { secrets: SECRETS });
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
    return this.update(id, (domain) => ({ ...domain, enabled }), actor);
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
