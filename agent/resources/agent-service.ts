/**
 * Agents: the one hosting the API (always present, never deleted) and other agents registered
 * by host name or address and API port so a console keeps its fleet in one place.
 * Register, change and delete other agents; change the local agent's comment, allow-list and
 * log storage limits. Changes go through the settings store and are reported to the
 * ChangeRecorder. No HTTP here.
 */
import crypto from 'node:crypto';
import type { ChangeRecorder } from '../pipeline/change-recorder.js';
import type { RegisteredAgentSettings } from '../config/fleet-schema.js';
import type { SettingsStore } from '../config/settings-store.js';
import { AllowList } from '../net/allow-list.js';
import { changeDetails } from './change-details.js';
import { invalidField, ServiceError } from '../util/service-error.js';
import { placed, withResourceProblems, type Placement } from './settings-problems.js';

export const AGENT_OBJECT_TYPE = 'Agent';

export interface RegisteredAgentFields {
  host: string;
  apiServerPort?: number | undefined;
  comment?: string | undefined;
}

/** What can change on the local agent, by settings name. */
export interface LocalAgentFields {
  comment: string;
  /** The agent and audit APIs' IP allow-list (settings `allowList`). */
  allowList: string[];
  /** Log storage limits in bytes (settings `logStorage`). */
  maxLocalSize: number;
  minLocalFreeSpace: number;
}

export interface LocalAgentChangeOptions {
  /**
   * An address the new allow-list must still admit (the caller's own): a change that would lock
   * out the client making it is refused rather than cutting its connection mid-request.
   */
  keepAdmitting?: string | undefined;
}

export interface AgentServiceDeps {
  settings: SettingsStore;
  recorder: ChangeRecorder;
  now?: () => Date;
}

function notFound(id: string): ServiceError {
  return new ServiceError('not_found', `there is no agent with id "${id}"`, 'id');
}

function newAgentId(): string {
  return `AGENT-${crypto.randomBytes(6).toString('hex').toUpperCase()}`;
}

function fields(agent: RegisteredAgentSettings): Omit<RegisteredAgentSettings, 'id' | 'createdAt'> {
  return { host: agent.host, apiServerPort: agent.apiServerPort, comment: agent.comment };
}

export class AgentService {
  private readonly now: () => Date;

  constructor(private readonly deps: AgentServiceDeps) {
    this.now = deps.now ?? (() => new Date());
  }

  get localId(): string {
    const id = this.deps.settings.current.agent.id;
    if (!id) throw new Error('the local agent has no id yet (ensureLocalAgentId runs at start)');
    return id;
  }

  /** Other agents, in the order they were registered. */
  registered(): readonly RegisteredAgentSettings[] {
    return this.deps.settings.current.agents;
  }

  findRegistered(id: string): RegisteredAgentSettings | undefined {
    return this.deps.settings.current.agents.find((a) => a.id === id);
  }

  async register(input: RegisteredAgentFields, actor: string): Promise<RegisteredAgentSettings> {
    let id = newAgentId();
    const placements: Placement[] = [];
    const next = await withResourceProblems(
      () =>
        this.deps.settings.update((draft) => {
          while (id === draft.agent.id || draft.agents.some((a) => a.id === id)) id = newAgentId();
          placements.push(placed('agents', draft.agents.length));
          draft.agents.push({ ...input, id, createdAt: this.now().toISOString() } as RegisteredAgentSettings);
        }),
      placements,
    );
    const agent = next.agents.find((a) => a.id === id)!;
    this.deps.recorder.recordChange({
      actor,
      action: 'Added',
      objectType: AGENT_OBJECT_TYPE,
      what: `${agent.host}:${agent.apiServerPort}`,
      id: agent.id,
      details: changeDetails(null, fields(agent)),
    });
    return agent;
  }

  async update(
    id: string,
    change: (current: Omit<RegisteredAgentSettings, 'id' | 'createdAt'>) => RegisteredAgentFields,
    actor: string,
  ): Promise<RegisteredAgentSettings> {
    if (id === this.deps.settings.current.agent.id) {
      throw new ServiceError('conflict', 'this is the local agent: change it with updateLocal', 'id');
    }
    let before: RegisteredAgentSettings | undefined;
    const placements: Placement[] = [];
    const next = await withResourceProblems(
      () =>
        this.deps.settings.update((draft) => {
          const index = draft.agents.findIndex((a) => a.id === id);
          if (index < 0) throw notFound(id);
          before = draft.agents[index]!;
          placements.push(placed('agents', index));
          draft.agents[index] = {
            ...change(fields(before)),
            id,
            createdAt: before.createdAt,
          } as RegisteredAgentSettings;
        }),
      placements,
    );
    const agent = next.agents.find((a) => a.id === id)!;
    const details = changeDetails(fields(before!), fields(agent));
    if (details.length > 0) {
      this.deps.recorder.recordChange({
        actor,
        action: 'Modified',
        objectType: AGENT_OBJECT_TYPE,
        what: `${agent.host}:${agent.apiServerPort}`,
        id: agent.id,
        details,
      });
    }
    return agent;
  }

  /** Forgets a registered agent (it keeps running; nothing is uninstalled). The local agent cannot be removed. */
  async remove(id: string, actor: string): Promise<void> {
    if (id === this.deps.settings.current.agent.id) {
      throw new ServiceError('conflict', 'the agent hosting the API cannot be deleted', 'id');
    }
    let removed: RegisteredAgentSettings | undefined;
    await this.deps.settings.update((draft) => {
      removed = draft.agents.find((a) => a.id === id);
      if (!removed) throw notFound(id);
      draft.agents = draft.agents.filter((a) => a.id !== id);
    });
    this.deps.recorder.recordChange({
      actor,
      action: 'Removed',
      objectType: AGENT_OBJECT_TYPE,
      what: `${removed!.host}:${removed!.apiServerPort}`,
      id: removed!.id,
      details: changeDetails(fields(removed!), null),
    });
  }

  localFields(): LocalAgentFields {
    const s = this.deps.settings.current;
    return {
      comment: s.agent.comment,
      allowList: [...s.allowList],
      maxLocalSize: s.logStorage.maxLocalSize,
      minLocalFreeSpace: s.logStorage.minLocalFreeSpace,
    };
  }

  async updateLocal(
    change: (current: LocalAgentFields) => LocalAgentFields,
    actor: string,
    options: LocalAgentChangeOptions = {},
  ): Promise<LocalAgentFields> {
    let before: LocalAgentFields | undefined;
    await withResourceProblems(
      () =>
        this.deps.settings.update((draft) => {
          before = {
            comment: draft.agent.comment,
            allowList: draft.allowList,
            maxLocalSize: draft.logStorage.maxLocalSize,
            minLocalFreeSpace: draft.logStorage.minLocalFreeSpace,
          };
          const next = change(structuredClone(before));
          draft.agent.comment = next.comment;
          draft.allowList = next.allowList;
          draft.logStorage.maxLocalSize = next.maxLocalSize;
          draft.logStorage.minLocalFreeSpace = next.minLocalFreeSpace;
          if (
            options.keepAdmitting !== undefined &&
            JSON.stringify(next.allowList) !== JSON.stringify(before.allowList)
          ) {
            this.checkStillAdmits(next.allowList, options.keepAdmitting);
          }
        }),
      [
        { prefix: 'agent', as: '' },
        { prefix: 'allowList', as: 'allowList' },
        { prefix: 'logStorage', as: '' },
      ],
    );
    const after = this.localFields();
    const details = changeDetails({ ...before! }, { ...after });
    if (details.length > 0) {
      this.deps.recorder.recordChange({
        actor,
        action: 'Modified',
        objectType: AGENT_OBJECT_TYPE,
        what: this.localId,
        id: this.localId,
        details,
      });
    }
    return after;
  }

  private checkStillAdmits(entries: unknown, address: string): void {
    if (!Array.isArray(entries) || !entries.every((e) => typeof e === 'string')) return; // the schema reports it
    let list: AllowList;
    try {
      list = new AllowList(entries);
    } catch {
      return; // an invalid entry: the schema names it
    }
    if (!list.allows(address)) {
      throw invalidField(
        'allowList',
        `the new allow-list does not admit ${address}, the address of this request: it would shut this client out (change it in the console instead)`,
      );
    }
  }
}
