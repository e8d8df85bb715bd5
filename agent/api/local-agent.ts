/**
 * The agent hosting the API, as an Agent resource (shared/agent-resource.ts). Its id is
 * generated once and kept in settings (`agent.id`), so it is stable across restarts and
 * clients can store it.
 */
import crypto from 'node:crypto';
import os from 'node:os';
import type { AgentDetailedView, AgentPlatform, AgentSigningKey, ResourceStatus } from '../../shared/agent-resource.js';
import type { Settings } from '../config/settings-schema.js';
import type { SettingsStore } from '../config/settings-store.js';

export function platformId(platform: NodeJS.Platform = process.platform): AgentPlatform {
  if (platform === 'win32') return 'Windows';
  if (platform === 'darwin') return 'MacOS';
  return 'Linux';
}

/** Gives the local agent its id on first start (`AGENT-` and 12 hex digits); returns the id. */
export async function ensureLocalAgentId(settings: SettingsStore): Promise<string> {
  const existing = settings.current.agent.id;
  if (existing) return existing;
  const id = `AGENT-${crypto.randomBytes(6).toString('hex').toUpperCase()}`;
  const next = await settings.update((draft) => {
    draft.agent.id ??= id;
  });
  return next.agent.id ?? id;
}

export interface LocalAgentFacts {
  settings: SettingsStore;
  version: string;
  apiPort: () => number;
  consoleUrl: () => string;
  /**
   * The agent's own status: OK while running; Error while records cannot be stored. Return the
   * same object while nothing changes (views are cached until it does).
   */
  status: () => ResourceStatus;
  /** The key that signs the record chain (docs/integrity.md). */
  signingKey?: AgentSigningKey;
}

function userName(): string {
  try {
    const user = os.userInfo().username;
    return process.platform === 'win32' ? `${os.hostname()}\\${user}` : user;
  } catch {
    return '';
  }
}

export class LocalAgent {
  private configVersionOf: { source: Settings | null; value: string } = { source: null, value: '' };
  private readonly userName = userName();
  /** Facts of the machine, read once: os calls are system calls, and they do not change while running. */
  private readonly host = os.hostname();
  private readonly osVersion = `${os.type()} ${os.release()}`;
  private readonly platform = platformId();

  constructor(private readonly facts: LocalAgentFacts) {}

  get id(): string {
    const id = this.facts.settings.current.agent.id;
    if (!id) throw new Error('the local agent has no id yet (ensureLocalAgentId runs at start)');
    return id;
  }

  get apiPort(): number {
    return this.facts.apiPort();
  }

  /** A short hash of the settings document, recomputed only when it changes. */
  private configVersion(): string {
    const current = this.facts.settings.current;
    if (this.configVersionOf.source !== current) {
      const value = crypto.createHash('sha256').update(JSON.stringify(current)).digest('hex').slice(0, 16);
      this.configVersionOf = { source: current, value };
    }
    return this.configVersionOf.value;
  }

  private described: {
    origin: string;
    settings: Settings | null;
    port: number;
    status: ResourceStatus | null;
    view: AgentDetailedView | null;
  } = { origin: '', settings: null, port: 0, status: null, view: null };

  /**
   * The detailed view; `origin` (`https://host:port`) makes the links absolute. Built again only
   * when the origin, the settings or the port changed (this answers every GET of an agent).
   */
  describe(origin: string): AgentDetailedView {
    const settings = this.facts.settings.current;
    const port = this.facts.apiPort();
    const status = this.facts.status();
    const last = this.described;
    if (
      last.view &&
      last.origin === origin &&
      last.settings === settings &&
      last.port === port &&
      last.status === status
    ) {
      return last.view;
    }
    // Shared by every request until something changes: frozen so no handler can alter it.
    const view = Object.freeze(this.build(origin, status));
    Object.freeze(view.warnings);
    Object.freeze(view.apiServerIpWhitelist);
    Object.freeze(view.status);
    this.described = { origin, settings, port, status, view };
    return view;
  }

  private build(origin: string, status: ResourceStatus): AgentDetailedView {
    const id = this.id;
    const self = `${origin}/api/v1/agents/${encodeURIComponent(id)}`;
    const host = this.host;
    return {
      id,
      url: self,
      platformId: this.platform,
      host,
      netbiosName: host.split('.')[0]!.toUpperCase().slice(0, 15),
      domain: '',
      osVersion: this.osVersion,
      isDC: false,
      errorMessage: status.type === 'Error' ? status.details : '',
      installState: 'Installed',
      version: this.facts.version,
      configVersion: this.configVersion(),
      monitoredHostsUrl: `${self}/hosts`,
      monitoredDomainUrl: `${self}/domain`,
      apiServerIsEnabled: true,
      apiServerPort: this.facts.apiPort(),
      userName: this.userName,
      comment: this.facts.settings.current.agent.comment,
      status: { ...status },
      signingKey: this.facts.signingKey ?? null,
      warnings: status.type === 'OK' ? [] : [status.summary],
      apiServerIpWhitelist: [...this.facts.settings.current.allowList],
      apiServerMgmtConsole: this.facts.consoleUrl(),
      maxLocalSize: this.facts.settings.current.logStorage.maxLocalSize,
      minLocalFreeSpace: this.facts.settings.current.logStorage.minLocalFreeSpace,
    };
  }
}
