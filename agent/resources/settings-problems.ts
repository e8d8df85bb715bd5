/**
 * Turns a refused settings change (SettingsValidationError, whose fields are paths in
 * settings.json such as `hosts[3].includePaths[1]`) into a ResourceError naming the field the
 * way the caller sent it (`includePaths[1]`): a service records where it placed each resource
 * of the change in the settings, and problems under those places are renamed accordingly.
 */
import { SettingsValidationError } from '../config/settings-store.js';
import { ResourceError } from './resource-error.js';

/** `hosts[3]` in the settings is `as` in the caller's input ('' for the resource itself). */
export interface Placement {
  prefix: string;
  as: string;
}

export function placed(section: string, index: number, as = ''): Placement {
  return { prefix: `${section}[${index}]`, as };
}

export function callerField(field: string, placements: readonly Placement[]): string {
  for (const { prefix, as } of placements) {
    if (field === prefix) return as;
    if (field.startsWith(`${prefix}.`)) {
      const rest = field.slice(prefix.length + 1);
      return as === '' ? rest : `${as}.${rest}`;
    }
    if (field.startsWith(`${prefix}[`)) return `${as}${field.slice(prefix.length)}`;
  }
  return field;
}

/** Runs a settings change; a validation failure becomes ResourceError('invalid') naming the caller's field. */
export async function withResourceProblems<T>(run: () => Promise<T>, placements: readonly Placement[]): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (!(error instanceof SettingsValidationError)) throw error;
    const problem = error.problems[0];
    throw new ResourceError(
      'invalid',
      problem?.message ?? error.message,
      callerField(problem?.field ?? '', placements),
    );
  }
}
