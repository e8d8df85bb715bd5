/**
 * Turns zod issues into messages that name the offending field the way an operator or an API
 * client wrote it (`agentApi.port`, `allowList[2]`).
 */
import type { z } from 'zod';

export interface FieldProblem {
  /** Dotted path of the field, e.g. `agentApi.port` or `allowList[2]`; empty for the root. */
  field: string;
  message: string;
  /**
   * When a value that must be unique is taken: the id of the resource holding it. Schema checks
   * set it as the issue's `params.holderId`.
   */
  holderId?: string;
}

export function fieldPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out === '' ? String(part) : `.${String(part)}`;
  }
  return out;
}

export function fieldProblems(error: z.ZodError): FieldProblem[] {
  const problems: FieldProblem[] = [];
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        problems.push({ field: fieldPath([...issue.path, key]), message: 'unknown field' });
      }
    } else {
      const holderId =
        issue.code === 'custom' ? (issue.params as { holderId?: unknown } | undefined)?.holderId : undefined;
      problems.push({
        field: fieldPath(issue.path),
        message: issue.message,
        ...(typeof holderId === 'string' ? { holderId } : {}),
      });
    }
  }
  return problems;
}

export function describeProblem(problem: FieldProblem): string {
  return problem.field === '' ? problem.message : `field "${problem.field}": ${problem.message}`;
}
