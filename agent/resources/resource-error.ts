/**
 * Failures of changes to the agent's resources (hosts, outputs, agents, domains, policies), as
 * data. Services throw them; the agent API maps them to 400 / 404 / 409 with the field named,
 * and the console can do the same. `field` is a path in the caller's input (`includePaths[2]`).
 */

export type ResourceErrorKind = 'invalid' | 'not_found' | 'conflict';

export class ResourceError extends Error {
  constructor(
    readonly kind: ResourceErrorKind,
    message: string,
    readonly field?: string,
  ) {
    super(message);
    this.name = 'ResourceError';
  }
}

export const invalidField = (field: string, message: string): ResourceError =>
  new ResourceError('invalid', message, field);
