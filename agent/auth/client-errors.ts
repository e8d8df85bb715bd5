/**
 * Refused changes to client applications: ServiceErrors (agent/util/service-error.ts), so the
 * console maps them with every other refusal (400 / 404 / 409, naming the field) and the CLI
 * exits with code 2 (all are mistakes the operator can fix).
 */
import { ServiceError, type ServiceErrorKind } from '../util/service-error.js';

export class ClientApplicationError extends ServiceError {
  constructor(
    kind: ServiceErrorKind,
    message: string,
    /** The input field at fault (`name`, `permissions`, `permissions[1]`, `clientId`). */
    field?: string,
  ) {
    super(kind, message, field);
    this.name = 'ClientApplicationError';
  }
}
