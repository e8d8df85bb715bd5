/**
 * A domain as the console shows it (shared/console-api.ts `DomainSummary`): its settings, never
 * its password (only whether one is kept), its status and its policies. One builder for the
 * console API and for `vigil domain` offline, so both print the same shape.
 */
import type { DomainSummary } from '../../shared/console-api.js';
import type { DomainSettings, PolicySettings } from '../config/directory-schema.js';
import { isChangesPolicy } from './policy-xml.js';

export function domainSummary(
  domain: DomainSettings,
  context: { policies: readonly PolicySettings[]; hasPassword: boolean; status: DomainSummary['status'] },
): DomainSummary {
  return {
    id: domain.id,
    name: domain.name,
    ldapServer: domain.ldapServer,
    userName: domain.userName,
    baseDn: domain.baseDn,
    pollingIntervalSeconds: domain.pollingIntervalSeconds,
    tls: domain.tls,
    caFile: domain.caFile,
    isEnabled: domain.isEnabled,
    comment: domain.comment,
    hasPassword: context.hasPassword,
    status: context.status,
    policies: context.policies
      .filter((p) => p.domainId === domain.id)
      .map((p) => ({ id: p.id, name: p.name, isEnabled: p.isEnabled, isChanges: isChangesPolicy(p.xml) })),
  };
}
