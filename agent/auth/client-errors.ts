/**
 * Failures of changes to client applications, as data. The console API maps them to
 * 400 / 404 / 409 and the CLI to exit code 2 (all are mistakes the operator can fix).
 */

export type ClientErrorKind = 'invalid' | 'not_found' | 'name_taken';

export class ClientApplicationError extends Error {
  constructor(
    readonly kind: ClientErrorKind,
    message: string,
    /** The input field at fault (`name`, `permissions`, `permissions[1]`, `clientId`). */
    readonly field?: string,
  ) {
    super(message);
    this.name = 'ClientApplicationError';
  }
}
