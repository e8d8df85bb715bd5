/**
 * Hosts: what the agent monitors (docs/agent-api.md; on a workstation, its own file system
 * with the folders to watch). Create, change, enable or disable, add or remove a watched
 * folder, delete. Every change goes through the settings store (validated, written atomically,
 * applied at once by the monitoring, which follows the settings) and is reported to the
 * ChangeRecorder with the caller as actor. No HTTP here: the agent API and the console both
 * call it. Fields are the settings' names, which are the API's (`host`, `isEnabled`); errors name them too.
 */
import crypto from 'node:crypto';
import type { ChangeRecorder } from '../pipeline/change-recorder.js';
import type { HostInput, HostSettings, OutputSettings } from '../config/monitoring-schema.js';
import type { SettingsStore } from '../config/settings-store.js';
import { changeDetails } from './change-details.js';
import { checkHostType } from './host-type.js';
import { checkOutputType, describeOutput, OUTPUT_OBJECT_TYPE, type OutputFields } from './output-service.js';
import { ServiceError, takenBy } from '../util/service-error.js';
import { placed, withResourceProblems, type Placement } from './settings-problems.js';

export const HOST_OBJECT_TYPE = 'Host';

/** A host as a caller describes it; `type` is checked here (any text, so the refusal can name it). */
export type HostFields = Omit<HostInput, 'type'> & { type: string };

/** The settings of a host other than its id, as a change function sees and returns them. */
export type HostState = Omit<HostSettings, 'id'>;

export interface HostServiceDeps {
  settings: SettingsStore;
  recorder: ChangeRecorder;
}

function withoutId<T extends { id: string }>(item: T): Omit<T, 'id'> {
  const copy: Partial<T> = { ...item };
  delete copy.id;
  return copy as Omit<T, 'id'>;
}

function notFound(id: string): ServiceError {
  return new ServiceError('not_found', `there is no host with id "${id}"`, 'id');
}

export class HostService {
  constructor(private readonly deps: HostServiceDeps) {}

  list(): readonly HostSettings[] {
    return this.deps.settings.current.hosts;
  }

  find(id: string): HostSettings | undefined {
    return this.deps.settings.current.hosts.find((h) => h.id === id);
  }

  /**
   * Adds a host and its outputs in one settings change. `outputs` may be empty: the host's
   * records still go to the audit database.
   */
  async create(
    fields: HostFields,
    outputs: readonly OutputFields[],
    actor: string,
  ): Promise<{ host: HostSettings; outputs: OutputSettings[] }> {
    const id = crypto.randomUUID();
    const outputIds = outputs.map(() => crypto.randomUUID());
    const placements: Placement[] = [];
    const next = await withResourceProblems(
      () =>
        this.deps.settings.update((draft) => {
          const type = checkHostType(fields.type);
          this.checkUniqueName(draft.hosts, fields.host, null);
          placements.push(placed('hosts', draft.hosts.length));
          draft.hosts.push({ ...fields, type, id } as HostSettings);
          outputs.forEach((output, i) => {
            placements.push(placed('outputs', draft.outputs.length, `outputs[${i}]`));
            const outputType = checkOutputType(output.type, `outputs[${i}].type`);
            draft.outputs.push({ ...output, type: outputType, id: outputIds[i]!, hostId: id } as OutputSettings);
          });
        }),
      placements,
      outputIds,
    );
    const host = next.hosts.find((h) => h.id === id)!;
    const created = outputIds.map((oid) => next.outputs.find((o) => o.id === oid)!);
    this.deps.recorder.recordChange({
      actor,
      action: 'Added',
      objectType: HOST_OBJECT_TYPE,
      what: host.host,
      id: host.id,
      details: changeDetails(null, withoutId(host)),
    });
    for (const output of created) {
      this.deps.recorder.recordChange({
        actor,
        action: 'Added',
        objectType: OUTPUT_OBJECT_TYPE,
        what: describeOutput(output, host.host),
        id: output.id,
        details: changeDetails(null, output, { skip: ['id', 'hostId'] }),
      });
    }
    return { host, outputs: created };
  }

  /**
   * Changes a host: `change` gets its current settings (without id) and returns the new ones.
   * It runs on the latest settings, inside the store's queue, so concurrent changes of other
   * fields are not lost. Throws ServiceError (not_found, invalid naming the field).
   */
  async update(id: string, change: (current: HostState) => HostFields, actor: string): Promise<HostSettings> {
    let before: HostSettings | undefined;
    const placements: Placement[] = [];
    const next = await withResourceProblems(
      () =>
        this.deps.settings.update((draft) => {
          const index = draft.hosts.findIndex((h) => h.id === id);
          if (index < 0) throw notFound(id);
          before = draft.hosts[index]!;
          const fields = change(withoutId(before));
          const type = checkHostType(fields.type);
          this.checkUniqueName(draft.hosts, fields.host, id);
          placements.push(placed('hosts', index));
          draft.hosts[index] = { ...fields, type, id } as HostSettings;
        }),
      placements,
    );
    const host = next.hosts.find((h) => h.id === id)!;
    const details = changeDetails(withoutId(before!), withoutId(host));
    if (details.length > 0) {
      this.deps.recorder.recordChange({
        actor,
        action: 'Modified',
        objectType: HOST_OBJECT_TYPE,
        what: host.host,
        id: host.id,
        details,
      });
    }
    return host;
  }

  setEnabled(id: string, enabled: boolean, actor: string): Promise<HostSettings> {
    return this.update(id, (host) => ({ ...host, isEnabled: enabled }), actor);
  }

  /** Adds a folder to watch (absolute path); adding one already watched changes nothing. */
  addIncludePath(id: string, folder: string, actor: string): Promise<HostSettings> {
    return this.update(
      id,
      (host) => ({
        ...host,
        includePaths: host.includePaths.includes(folder) ? host.includePaths : [...host.includePaths, folder],
      }),
      actor,
    );
  }

  removeIncludePath(id: string, folder: string, actor: string): Promise<HostSettings> {
    return this.update(id, (host) => ({ ...host, includePaths: host.includePaths.filter((p) => p !== folder) }), actor);
  }

  /** Removes a host and its outputs (their log files follow the orphan retention). */
  async remove(id: string, actor: string): Promise<void> {
    let removed: { host: HostSettings; outputs: OutputSettings[] } | undefined;
    await this.deps.settings.update((draft) => {
      const host = draft.hosts.find((h) => h.id === id);
      if (!host) throw notFound(id);
      removed = { host, outputs: draft.outputs.filter((o) => o.hostId === id) };
      draft.hosts = draft.hosts.filter((h) => h.id !== id);
      draft.outputs = draft.outputs.filter((o) => o.hostId !== id);
    });
    const { host, outputs } = removed!;
    for (const output of outputs) {
      this.deps.recorder.recordChange({
        actor,
        action: 'Removed',
        objectType: OUTPUT_OBJECT_TYPE,
        what: describeOutput(output, host.host),
        id: output.id,
        details: changeDetails(output, null, { skip: ['id', 'hostId'] }),
      });
    }
    this.deps.recorder.recordChange({
      actor,
      action: 'Removed',
      objectType: HOST_OBJECT_TYPE,
      what: host.host,
      id: host.id,
      details: changeDetails(withoutId(host), null),
    });
  }

  /** Host names are unique without regard to case: they name the log files and the records' MonitoringPlan. */
  private checkUniqueName(hosts: readonly HostSettings[], name: unknown, self: string | null): void {
    if (typeof name !== 'string') return; // the schema reports it
    const key = name.trim().toLowerCase();
    const other = hosts.find((h) => h.id !== self && h.host.toLowerCase() === key);
    if (other) throw takenBy('host', `a host named "${other.host}" already exists (id ${other.id})`, other.id);
  }
}
