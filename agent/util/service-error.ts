/**
 * Failures of a service call (a change to the agent's resources, clients, users), as data.
 * Services throw them; each front end maps them: the agent API and the console to 400 / 404 /
 * 409 with the field named (docs/agent-api.md "Errors"). `field` is a path in the caller's input
 * (`includePaths[2]`); a `conflict` names in `holderId` the resource that already holds the
 * unique value, so a client can go straight to it.
 */

export type ServiceErrorKind = 'invalid' | 'not_found' | 'conflict';

export class ServiceError extends Error {
  constructor(
    readonly kind: ServiceErrorKind,
    message: string,
    readonly field?: string,
    /** For a `conflict`: the id of the resource that holds the value. */
    readonly holderId?: string,
  ) {
    super(message);
    this.name = 'ServiceError';
  }
}

export const invalidField = (field: string, message: string): ServiceError =>
  new ServiceError('invalid', message, field);

/** A value that must be unique is taken: `field` names it, `holderId` the resource that has it. */
export const takenBy = (field: string, message: string, holderId: string): ServiceError =>
  new ServiceError('conflict', message, field, holderId);
