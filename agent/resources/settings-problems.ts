/**
 * Turns a refused settings change (SettingsValidationError, whose fields are paths in
 * settings.json such as `hosts[3].includePaths[1]`) into a ServiceError naming the field the
 * way the caller sent it (`includePaths[1]`): a service records where it placed each resource
 * of the change in the settings, and problems under those places are renamed accordingly.
 */
import { SettingsValidationError } from '../config/settings-store.js';
import { ServiceError } from '../util/service-error.js';

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

/**
 * Runs a settings change; a validation failure becomes ServiceError('invalid') naming the
 * caller's field, or ServiceError('conflict') when the problem is a unique value already taken.
 */
export async function withResourceProblems<T>(
  run: () => Promise<T>,
  placements: readonly Placement[],
  /** Ids created by this change: a clash among them is bad input, not a conflict with a resource. */
  createdIds: readonly string[] = [],
): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (!(error instanceof SettingsValidationError)) throw error;
    const problem = error.problems[0];
    const holderId = problem?.holderId;
    const conflict = holderId !== undefined && !createdIds.includes(holderId);
    throw new ServiceError(
      conflict ? 'conflict' : 'invalid',
      problem?.message ?? error.message,
      callerField(problem?.field ?? '', placements),
      conflict ? holderId : undefined,
    );
  }
}
