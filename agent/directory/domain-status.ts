/**
 * The runtime status of each domain (`status` of the domain resource, like a host's): OK while
 * the directory is read, Warning while its server cannot be reached, Error when it refuses the
 * bind, the TLS handshake fails or it does not speak LDAP. In memory only; polling retries by
 * itself and the status follows.
 */
import type { StatusType } from '../status/status-registry.js';

export interface DomainStatus {
  type: StatusType;
  summary: string;
  details: string;
  updatedAt: string;
}

export class DomainStatusBoard {
  private readonly statuses = new Map<string, DomainStatus>();

  constructor(private readonly now: () => Date = () => new Date()) {}

  set(domainId: string, type: StatusType, summary: string, details = ''): void {
    const current = this.statuses.get(domainId);
    if (current && current.type === type && current.summary === summary && current.details === details) return;
    this.statuses.set(domainId, { type, summary, details, updatedAt: this.now().toISOString() });
  }

  get(domainId: string): DomainStatus | undefined {
    const status = this.statuses.get(domainId);
    return status && { ...status };
  }

  forget(domainId: string): void {
    this.statuses.delete(domainId);
  }
}
