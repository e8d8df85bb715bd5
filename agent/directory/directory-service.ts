/**
 * Runs one directory source per monitored domain and follows the settings (docs/directory.md): a
 * domain is monitored when it is enabled and has at least one enabled Changes policy. A domain
 * that stops being monitored (disabled, removed, its last Changes policy disabled or removed)
 * has its cursor or snapshot forgotten, so monitoring it again starts from a fresh baseline
 * instead of reporting what changed while it was off.
 */
import type { Settings } from '../config/settings-schema.js';
import type { SettingsStore } from '../config/settings-store.js';
import type { DomainSettings, PolicySettings } from '../config/directory-schema.js';
import type { DomainPasswords } from '../config/domain-passwords.js';
import type { Logger } from '../log/logger.js';
import type { Pipeline } from '../pipeline/pipeline.js';
import type { ChangesPolicy, ChangesSelection } from './changes-selection.js';
import { DirectorySource } from './directory-source.js';
import type { DirectoryStateTable } from './directory-state.js';
import type { DomainStatusBoard } from './domain-status.js';

export interface DirectoryServiceOptions {
  settings: SettingsStore;
  passwords: Pick<DomainPasswords, 'get'>;
  pipeline: Pipeline;
  state: DirectoryStateTable;
  status: DomainStatusBoard;
  log: Logger;
  /** The Changes selection of a policy's XML, null when it has none (agent/resources/policy-xml.ts). */
  changesOf: (xml: string) => ChangesSelection | null;
  timeoutMs?: number;
}

interface Running {
  key: string;
  source: DirectorySource;
}

export class DirectoryService {
  private readonly running = new Map<string, Running>();
  private chain: Promise<void> = Promise.resolve();
  private unsubscribe: (() => void) | null = null;
  private stopped = false;

  constructor(private readonly o: DirectoryServiceOptions) {}

  start(): void {
    this.enqueue(this.o.settings.current, true);
    this.unsubscribe = this.o.settings.onChange((next) => this.enqueue(next, false));
  }

  /** Resolves when every settings change so far is in effect (first polls done). */
  ready(): Promise<void> {
    return this.chain;
  }

  source(domainId: string): DirectorySource | undefined {
    return this.running.get(domainId)?.source;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    await this.chain;
    await Promise.all([...this.running.values()].map(({ source }) => source.stop()));
    this.running.clear();
  }

  /** The enabled Changes policies of a domain; a policy whose XML no longer parses is skipped. */
  changesPolicies(domainId: string, policies: readonly PolicySettings[]): ChangesPolicy[] {
    const out: ChangesPolicy[] = [];
    for (const policy of policies) {
      if (policy.domainId !== domainId || !policy.isEnabled) continue;
      try {
        const selection = this.o.changesOf(policy.xml);
        if (selection) out.push({ id: policy.id, name: policy.name, selection });
      } catch (error) {
        this.o.log.warn('policy skipped: its XML does not parse', {
          policy: policy.name,
          error: (error as Error).message,
        });
      }
    }
    return out;
  }

  private enqueue(settings: Settings, initial: boolean): void {
    this.chain = this.chain
      .then(() => this.reconcile(settings, initial))
      .catch((error: Error) => this.o.log.error('applying domain settings failed', { error: error.message }));
  }

  private async reconcile(settings: Settings, initial: boolean): Promise<void> {
    if (this.stopped) return;
    const wanted = new Map<string, { domain: DomainSettings; policies: ChangesPolicy[] }>();
    for (const domain of settings.domains) {
      const policies = this.changesPolicies(domain.id, settings.policies);
      if (!domain.isEnabled) this.o.status.set(domain.id, 'OK', 'Monitoring is disabled');
      else if (policies.length === 0) {
        this.o.status.set(domain.id, 'OK', 'Not monitored', 'The domain has no enabled Changes policy.');
      } else wanted.set(domain.id, { domain, policies });
    }
    for (const [id, running] of [...this.running]) {
      const next = wanted.get(id);
      if (next && keyOf(next.domain, next.policies) === running.key) continue;
      this.running.delete(id);
      await running.source.stop();
      if (!next) await this.forget(id, settings);
    }
    if (initial) {
      for (const id of this.o.state.domainIds()) if (!wanted.has(id)) await this.forget(id, settings);
    }
    for (const [id, { domain, policies }] of wanted) {
      if (this.running.has(id) || this.stopped) continue;
      const source = new DirectorySource({
        domain,
        policies,
        password: () => this.o.passwords.get(domain.id),
        pipeline: this.o.pipeline,
        state: this.o.state,
        status: this.o.status,
        log: this.o.log,
        ...(this.o.timeoutMs !== undefined ? { timeoutMs: this.o.timeoutMs } : {}),
      });
      this.running.set(id, { key: keyOf(domain, policies), source });
      this.o.status.set(id, 'OK', 'Starting');
      await source.start();
    }
  }

  private async forget(domainId: string, settings: Settings): Promise<void> {
    await this.o.pipeline.submit({ items: [], commitWith: () => this.o.state.drop(domainId) }).catch(() => undefined);
    if (!settings.domains.some((d) => d.id === domainId)) this.o.status.forget(domainId);
  }
}

/** What, when changed, restarts a domain's source (its comment does not). */
function keyOf(domain: DomainSettings, policies: readonly ChangesPolicy[]): string {
  const { name, ldapServer, userName, baseDn, pollingIntervalSeconds, tls, caFile } = domain;
  return JSON.stringify([name, ldapServer, userName, baseDn, pollingIntervalSeconds, tls, caFile, policies]);
}
