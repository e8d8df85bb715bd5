/**
 * Outputs: where a host's (or a domain's) activity goes — a LogFile (TSV or JSON) or Syslog
 * (docs/agent-api.md). Create, change, enable or disable, delete. Changes go through the
 * settings store; the output manager follows the settings, so a change applies to the next
 * batch of records. Host outputs live in `outputs`, domain outputs in `domainOutputs`; their ids
 * are unique together, so one id names an output wherever it lives. No HTTP here.
 */
import crypto from 'node:crypto';
import type { ChangeRecorder } from '../pipeline/change-recorder.js';
import {
  OUTPUT_TYPES,
  type DomainOutputSettings,
  type OutputInput,
  type OutputSettings,
} from '../config/monitoring-schema.js';
import type { Settings } from '../config/settings-schema.js';
import type { SettingsStore } from '../config/settings-store.js';
import { changeDetails } from './change-details.js';
import { invalidField, ServiceError } from '../util/service-error.js';
import { placed, withResourceProblems, type Placement } from './settings-problems.js';

export const OUTPUT_OBJECT_TYPE = 'Output';

/** An output with its owner: exactly one of `hostId` and `domainId` is set. */
export type AnyOutput = (OutputSettings & { domainId?: undefined }) | (DomainOutputSettings & { hostId?: undefined });
export type OutputOwner = { hostId: string; domainId?: undefined } | { domainId: string; hostId?: undefined };

/** The settings of an output other than its id and owner, as a change function sees them. */
export type OutputState = Omit<OutputSettings, 'id' | 'hostId'>;

/** A caller may name any type; the refusal says which ones this agent writes. */
export type OutputFields = Omit<OutputInput, 'type'> & { type: string };

export function describeOutput(output: { id: string; type: string }, ownerName: string): string {
  return `${output.type} output ${output.id} of ${ownerName}`;
}

export function checkOutputType(type: unknown, field = 'type'): (typeof OUTPUT_TYPES)[number] {
  if ((OUTPUT_TYPES as readonly unknown[]).includes(type)) return type as (typeof OUTPUT_TYPES)[number];
  const named = typeof type === 'string' && type !== '' ? `a ${type} output` : 'an output of another type';
  throw invalidField(field, `this agent writes ${OUTPUT_TYPES.join(' and ')} outputs only; it cannot send to ${named}`);
}

function state(output: AnyOutput): OutputState {
  const copy: Partial<OutputSettings & DomainOutputSettings> = { ...output };
  delete copy.id;
  delete copy.hostId;
  delete copy.domainId;
  return copy as OutputState;
}

function notFound(id: string): ServiceError {
  return new ServiceError('not_found', `there is no output with id "${id}"`, 'id');
}

function ownerName(settings: Readonly<Settings>, output: AnyOutput): string {
  if (output.hostId !== undefined) return settings.hosts.find((h) => h.id === output.hostId)?.host ?? output.hostId;
  const domain = settings.domains.find((d) => d.id === output.domainId);
  return `domain ${domain?.name ?? output.domainId}`;
}

export interface OutputServiceDeps {
  settings: SettingsStore;
  recorder: ChangeRecorder;
}

export class OutputService {
  constructor(private readonly deps: OutputServiceDeps) {}

  /** Host outputs first, then domain outputs, each in settings order. */
  list(): AnyOutput[] {
    const { outputs, domainOutputs } = this.deps.settings.current;
    return [...outputs, ...domainOutputs];
  }

  find(id: string): AnyOutput | undefined {
    const { outputs, domainOutputs } = this.deps.settings.current;
    return outputs.find((o) => o.id === id) ?? domainOutputs.find((o) => o.id === id);
  }

  ofHost(hostId: string): OutputSettings[] {
    return this.deps.settings.current.outputs.filter((o) => o.hostId === hostId);
  }

  ofDomain(domainId: string): DomainOutputSettings[] {
    return this.deps.settings.current.domainOutputs.filter((o) => o.domainId === domainId);
  }

  async create(owner: OutputOwner, fields: OutputFields, actor: string): Promise<AnyOutput> {
    const id = crypto.randomUUID();
    const placements: Placement[] = [];
    const next = await withResourceProblems(
      () =>
        this.deps.settings.update((draft) => {
          const type = checkOutputType(fields.type);
          if (owner.hostId !== undefined) {
            if (!draft.hosts.some((h) => h.id === owner.hostId)) {
              throw new ServiceError('not_found', `there is no host with id "${owner.hostId}"`, 'hostId');
            }
            placements.push(placed('outputs', draft.outputs.length));
            draft.outputs.push({ ...fields, type, id, hostId: owner.hostId } as OutputSettings);
          } else {
            if (!draft.domains.some((d) => d.id === owner.domainId)) {
              throw new ServiceError('not_found', `there is no domain with id "${owner.domainId}"`, 'domainId');
            }
            placements.push(placed('domainOutputs', draft.domainOutputs.length));
            draft.domainOutputs.push({ ...fields, type, id, domainId: owner.domainId } as DomainOutputSettings);
          }
        }),
      placements,
    );
    const output = ([...next.outputs, ...next.domainOutputs] as AnyOutput[]).find((o) => o.id === id)!;
    this.deps.recorder.recordChange({
      actor,
      action: 'Added',
      objectType: OUTPUT_OBJECT_TYPE,
      what: describeOutput(output, ownerName(next, output)),
      id: output.id,
      details: changeDetails(null, state(output)),
    });
    return output;
  }

  /** Changes an output: `change` gets its current settings and returns the new ones (see HostService.update). */
  async update(id: string, change: (current: OutputState) => OutputFields, actor: string): Promise<AnyOutput> {
    let before: AnyOutput | undefined;
    const placements: Placement[] = [];
    const next = await withResourceProblems(
      () =>
        this.deps.settings.update((draft) => {
          const hostIndex = draft.outputs.findIndex((o) => o.id === id);
          const domainIndex = hostIndex < 0 ? draft.domainOutputs.findIndex((o) => o.id === id) : -1;
          if (hostIndex < 0 && domainIndex < 0) throw notFound(id);
          before = hostIndex >= 0 ? draft.outputs[hostIndex]! : draft.domainOutputs[domainIndex]!;
          const fields = change(state(before));
          const type = checkOutputType(fields.type);
          if (hostIndex >= 0) {
            placements.push(placed('outputs', hostIndex));
            draft.outputs[hostIndex] = { ...fields, type, id, hostId: before.hostId! } as OutputSettings;
          } else {
            placements.push(placed('domainOutputs', domainIndex));
            draft.domainOutputs[domainIndex] = {
              ...fields,
              type,
              id,
              domainId: before.domainId!,
            } as DomainOutputSettings;
          }
        }),
      placements,
    );
    const output = ([...next.outputs, ...next.domainOutputs] as AnyOutput[]).find((o) => o.id === id)!;
    const details = changeDetails(state(before!), state(output));
    if (details.length > 0) {
      this.deps.recorder.recordChange({
        actor,
        action: 'Modified',
        objectType: OUTPUT_OBJECT_TYPE,
        what: describeOutput(output, ownerName(next, output)),
        id: output.id,
        details,
      });
    }
    return output;
  }

  setEnabled(id: string, enabled: boolean, actor: string): Promise<AnyOutput> {
    return this.update(id, (output) => ({ ...output, isEnabled: enabled }), actor);
  }

  async remove(id: string, actor: string): Promise<void> {
    let removed: { output: AnyOutput; owner: string } | undefined;
    await this.deps.settings.update((draft) => {
      const output: AnyOutput | undefined =
        draft.outputs.find((o) => o.id === id) ?? draft.domainOutputs.find((o) => o.id === id);
      if (!output) throw notFound(id);
      removed = { output, owner: ownerName(draft, output) };
      draft.outputs = draft.outputs.filter((o) => o.id !== id);
      draft.domainOutputs = draft.domainOutputs.filter((o) => o.id !== id);
    });
    this.deps.recorder.recordChange({
      actor,
      action: 'Removed',
      objectType: OUTPUT_OBJECT_TYPE,
      what: describeOutput(removed!.output, removed!.owner),
      id: removed!.output.id,
      details: changeDetails(state(removed!.output), null),
    });
  }
}
