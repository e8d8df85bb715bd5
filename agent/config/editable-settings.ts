/**
 * The settings an operator edits in the console (shared/console-api.ts `EditableSettings`):
 * the three ports, the allow-list and the audit API's vendor segment. A change is a JSON Merge
 * Patch (RFC 7396) of that part, validated by the settings schema (errors name the field as the
 * file does: `agentApi.port`, `allowList[2]`) and written durably by the settings store.
 *
 * What applies when: the allow-list applies at once (agent.ts swaps it in and closes refused
 * connections), and so does the vendor (the audit app reads it per request); a port applies at
 * the next start, and `restartNeeded` names every saved port that differs from the one the
 * agent started with.
 */
import type { ConsoleSettingsView, EditableSettings } from '../../shared/console-api.js';
import type { ChangeRecorder } from '../pipeline/change-recorder.js';
import type { Settings } from './settings-schema.js';
import { SettingsValidationError, type SettingsStore } from './settings-store.js';

export interface RunningPorts {
  agentApiPort: number;
  auditApiPort: number;
  consolePort: number;
}

const PORT_FIELDS = [
  ['agentApi.port', (s: EditableSettings) => s.agentApi.port],
  ['auditApi.port', (s: EditableSettings) => s.auditApi.port],
  ['console.port', (s: EditableSettings) => s.console.port],
] as const;

export function editablePart(settings: Readonly<Settings>): EditableSettings {
  return {
    agentApi: { port: settings.agentApi.port },
    auditApi: { port: settings.auditApi.port, vendor: settings.auditApi.vendor },
    console: { port: settings.console.port },
    allowList: [...settings.allowList],
  };
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function invalid(field: string, message: string): SettingsValidationError {
  return new SettingsValidationError([{ field, message }]);
}

/** Checks the patch's shape: only the editable fields, each of the right JSON type. */
function checkPatch(patch: Record<string, unknown>): void {
  const sections: Record<string, readonly string[]> = {
    agentApi: ['port'],
    auditApi: ['port', 'vendor'],
    console: ['port'],
  };
  for (const [key, value] of Object.entries(patch)) {
    if (key === 'allowList') {
      if (!Array.isArray(value)) throw invalid('allowList', 'must be a list of addresses and CIDR ranges');
      value.forEach((entry, i) => {
        if (typeof entry !== 'string') throw invalid(`allowList[${i}]`, 'must be a string');
      });
      continue;
    }
    const fields = Object.hasOwn(sections, key) ? sections[key] : undefined; // not `constructor` & co.
    if (!fields) throw invalid(key, 'unknown field, or not editable here');
    if (!isObject(value)) throw invalid(key, 'must be an object');
    for (const [field, fieldValue] of Object.entries(value)) {
      if (!fields.includes(field)) throw invalid(`${key}.${field}`, 'unknown field, or not editable here');
      if (field === 'port' && typeof fieldValue !== 'number') throw invalid(`${key}.port`, 'must be a number');
      if (field === 'vendor' && typeof fieldValue !== 'string') throw invalid(`${key}.vendor`, 'must be a string');
    }
  }
}

function describeList(list: readonly string[]): string {
  return list.length === 0 ? '(empty)' : list.join(', ');
}

export class EditableSettingsService {
  /** The editable settings as the agent started with them (ports apply only at a start). */
  private readonly startedWith: EditableSettings;

  constructor(
    private readonly settings: SettingsStore,
    private readonly running: () => RunningPorts,
    private readonly recorder: ChangeRecorder,
  ) {
    this.startedWith = editablePart(settings.current);
  }

  view(): ConsoleSettingsView {
    const current = editablePart(this.settings.current);
    const restartNeeded = PORT_FIELDS.filter(([, get]) => get(current) !== get(this.startedWith)).map(
      ([field]) => field,
    );
    return { settings: current, running: this.running(), restartNeeded };
  }

  /** Applies a merge patch of the editable settings; throws SettingsValidationError naming the field. */
  async apply(patch: Record<string, unknown>, actor: string): Promise<ConsoleSettingsView> {
    checkPatch(patch);
    const before = editablePart(this.settings.current);
    const after: EditableSettings = structuredClone(before);
    const p = patch as Partial<EditableSettings>;
    if (p.agentApi?.port !== undefined) after.agentApi.port = p.agentApi.port;
    if (p.auditApi?.port !== undefined) after.auditApi.port = p.auditApi.port;
    if (p.auditApi?.vendor !== undefined) after.auditApi.vendor = p.auditApi.vendor;
    if (p.console?.port !== undefined) after.console.port = p.console.port;
    if (p.allowList !== undefined) after.allowList = p.allowList.map((entry) => entry.trim());
    // Two listeners cannot share a port; 0 ("pick a free one") may repeat.
    const seen = new Map<number, string>();
    for (const [field, get] of PORT_FIELDS) {
      const port = get(after);
      const other = seen.get(port);
      if (port !== 0 && other !== undefined) throw invalid(field, `port ${port} is already the ${other}`);
      seen.set(port, field);
    }
    const duplicate = after.allowList.findIndex((entry, i) => after.allowList.indexOf(entry) !== i);
    if (duplicate >= 0) throw invalid(`allowList[${duplicate}]`, `"${after.allowList[duplicate]}" is listed twice`);

    await this.settings.update((draft) => {
      draft.agentApi.port = after.agentApi.port;
      draft.auditApi.port = after.auditApi.port;
      draft.auditApi.vendor = after.auditApi.vendor;
      draft.console.port = after.console.port;
      draft.allowList = after.allowList;
    });
    this.record(before, after, actor);
    return this.view();
  }

  private record(before: EditableSettings, after: EditableSettings, actor: string): void {
    const details: Array<{ PropertyName: string; Before: string; After: string }> = [];
    const compare = (name: string, a: string, b: string): void => {
      if (a !== b) details.push({ PropertyName: name, Before: a, After: b });
    };
    compare('agentApi.port', String(before.agentApi.port), String(after.agentApi.port));
    compare('auditApi.port', String(before.auditApi.port), String(after.auditApi.port));
    compare('auditApi.vendor', before.auditApi.vendor, after.auditApi.vendor);
    compare('console.port', String(before.console.port), String(after.console.port));
    compare('allowList', describeList(before.allowList), describeList(after.allowList));
    if (details.length === 0) return;
    this.recorder.recordChange({
      actor,
      action: 'Modified',
      objectType: 'Settings',
      what: 'Agent settings',
      details,
      id: this.settings.current.agent.id ?? 'agent',
    });
  }
}
