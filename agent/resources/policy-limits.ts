/**
 * How much policy data one agent keeps (docs/agent-api.md "Policies"). Policies live in
 * settings.json, and every settings change (a client added, a permission changed, a folder
 * watched) serialises and validates the whole file on the event loop, so the policies' size is
 * bounded to keep every settings write short (docs/decisions.md, resources area). A settings file
 * already past a limit still loads; only changes that grow it further are refused.
 */
import type { PolicySettings } from '../config/directory-schema.js';
import { ServiceError } from '../util/service-error.js';

/** Policies of all domains together. */
export const MAX_POLICIES = 100;
/** Characters of policy XML of all domains together (1 MiB): four policies of the largest size. */
export const MAX_TOTAL_POLICY_XML = 1024 * 1024;

function totalXml(policies: readonly PolicySettings[]): number {
  return policies.reduce((sum, policy) => sum + policy.xml.length, 0);
}

/** Throws ServiceError('invalid') naming the limit when `after` grows past one of the limits. */
export function checkPolicyLimits(before: readonly PolicySettings[], after: readonly PolicySettings[]): void {
  if (after.length > MAX_POLICIES && after.length > before.length) {
    throw new ServiceError(
      'invalid',
      `this agent keeps at most ${MAX_POLICIES} policies (all domains together); delete one before adding another`,
    );
  }
  const total = totalXml(after);
  if (total > MAX_TOTAL_POLICY_XML && total > totalXml(before)) {
    throw new ServiceError(
      'invalid',
      `the policies of this agent may hold at most ${MAX_TOTAL_POLICY_XML} characters of XML together (1 MiB); ` +
        `this change would bring them to ${total}`,
      'xml',
    );
  }
}
