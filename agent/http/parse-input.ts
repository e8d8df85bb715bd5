/**
 * Request input checked against a zod schema, for the agent API and the console: the first
 * problem becomes 400 `invalid_request` naming its field (`prefix` before it), in the words of
 * agent/util/validation-errors.ts.
 */
import type { z } from 'zod';
import { invalidInput } from './api-error.js';
import { fieldProblems } from '../util/validation-errors.js';

export function parseInput<S extends z.ZodType>(schema: S, value: unknown, prefix = ''): z.infer<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const problem = fieldProblems(result.error)[0] ?? { field: '', message: 'invalid input' };
  const field =
    prefix === ''
      ? problem.field
      : problem.field === ''
        ? prefix
        : `${prefix}${problem.field.startsWith('[') ? '' : '.'}${problem.field}`;
  const description = field === '' ? problem.message : `${field}: ${problem.message}`;
  throw invalidInput(field, description);
}
