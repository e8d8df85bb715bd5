/**
 * Words for the zod schemas of console request bodies: a missing field and a field of the
 * wrong type are told apart, and both name the field (agent/http/parse-input.ts puts the
 * field's name before the message and in `field`).
 */
export function requiredField(field: string, expected: string): { error: (issue: { input: unknown }) => string } {
  return {
    error: (issue) => (issue.input === undefined ? `the ${field} is missing` : `the ${field} must be ${expected}`),
  };
}
