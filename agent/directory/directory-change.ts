/**
 * A change of one directory object, read from the accesslog or found by comparing snapshots, and
 * how it becomes activity records (docs/directory.md): one record per policy that selects it,
 * one detail per changed attribute that the policy does not exclude, values joined `; `,
 * passwords and other secrets shown only as `(changed)`.
 */
import type { ActivityDetail, NewActivityRecord } from '../../shared/activity-record.js';
import { formatWhen } from '../../shared/activity-record.js';
import { isExcluded, selects, type ChangesPolicy, type DirectoryAction } from './changes-selection.js';

export interface AttributeChange {
  name: string;
  before: string[];
  after: string[];
}

export interface DirectoryChange {
  action: DirectoryAction;
  /** The DN before the change. */
  dn: string;
  /** Moves and renames: the DN after. */
  newDn?: string | undefined;
  objectClasses: string[];
  /** The most specific structural objectClass, or '' when the directory did not say. */
  structuralClass: string;
  /** The DN of the account that made the change, or `unknown`. */
  who: string;
  when: Date;
  attributes: AttributeChange[];
}

/** Attributes whose values are never shown (RFC 4519 userPassword, RFC 3112 authPassword, AD, Samba, Kerberos). */
const SECRET_ATTRIBUTES = new Set(
  [
    'userPassword',
    'authPassword',
    'unicodePwd',
    'dBCSPwd',
    'ntPwdHistory',
    'lmPwdHistory',
    'supplementalCredentials',
    'sambaNTPassword',
    'sambaLMPassword',
    'sambaPasswordHistory',
    'krbPrincipalKey',
    'clearTextPassword',
  ].map((a) => a.toLowerCase()),
);

export function isSecretAttribute(name: string): boolean {
  return SECRET_ATTRIBUTES.has(name.toLowerCase());
}

/** Bookkeeping the server writes itself on every change: never a detail of its own. */
const OPERATIONAL = new Set(
  [
    'entryCSN',
    'entryUUID',
    'entryDN',
    'modifiersName',
    'modifyTimestamp',
    'creatorsName',
    'createTimestamp',
    'structuralObjectClass',
    'subschemaSubentry',
    'hasSubordinates',
    'contextCSN',
    'uSNChanged',
    'uSNCreated',
    'whenChanged',
    'whenCreated',
    'objectGUID',
    'replPropertyMetaData',
    'dSCorePropagationData',
  ].map((a) => a.toLowerCase()),
);

export function isOperationalAttribute(name: string): boolean {
  return OPERATIONAL.has(name.toLowerCase());
}

const MASK = '(changed)';

function detailOf(change: AttributeChange): ActivityDetail {
  const secret = isSecretAttribute(change.name);
  const detail: ActivityDetail = { PropertyName: change.name };
  if (change.before.length > 0) detail.Before = secret ? MASK : change.before.join('; ');
  if (change.after.length > 0) detail.After = secret ? MASK : change.after.join('; ');
  return detail;
}

/** What and where a domain's records say about themselves. */
export interface RecordContext {
  domainId: string;
  domainName: string;
  /** `Where`: the LDAP server's host. */
  server: string;
  dataSource: string;
}

/** The records of one change: one per selecting policy; none when only excluded attributes changed. */
export function recordsOf(
  change: DirectoryChange,
  policies: readonly ChangesPolicy[],
  context: RecordContext,
): NewActivityRecord[] {
  const records: NewActivityRecord[] = [];
  for (const policy of policies) {
    if (!selects(policy.selection, change)) continue;
    const attributes = change.attributes.filter((a) => !isExcluded(policy.selection, a.name));
    if (change.action === 'Modified' && attributes.length === 0) continue;
    const details: ActivityDetail[] = [];
    if (change.newDn !== undefined) details.push({ PropertyName: 'DN', Before: change.dn, After: change.newDn });
    details.push(...attributes.map(detailOf));
    const record: NewActivityRecord = {
      Who: change.who,
      Action: change.action,
      What: change.newDn ?? change.dn,
      When: formatWhen(change.when),
      Where: context.server,
      ObjectType: change.structuralClass || change.objectClasses.at(-1) || 'unknown',
      DataSource: context.dataSource,
      MonitoringPlan: { Name: context.domainName, ID: context.domainId },
      Item: { Name: policy.name },
    };
    if (details.length > 0) record.DetailList = details;
    records.push(record);
  }
  return records;
}
