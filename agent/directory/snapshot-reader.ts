/**
 * Where the directory keeps no readable log (no accesslog, Active Directory over LDAP): the whole
 * subtree is read (paged, RFC 2696) and compared with the snapshot saved last time. Objects are
 * matched by their identity (OpenLDAP `entryUUID`, RFC 4530; AD `objectGUID`), so a changed DN is
 * a move or a rename, not a removal and an addition; a changed version (`entryCSN`, AD
 * `uSNChanged`, else `modifyTimestamp`/`whenChanged`) says which objects to compare attribute by
 * attribute. Nobody is named: `Who` is `unknown`. Secret values are kept only as hashes.
 */
import crypto from 'node:crypto';
import type { Client, Entry } from 'ldapts';
import {
  isOperationalAttribute,
  isSecretAttribute,
  type AttributeChange,
  type DirectoryChange,
} from './directory-change.js';
import { normalizeDn, parentDn } from './dn.js';

const PAGE_SIZE = 500;

/** One object as the snapshot keeps it. */
export interface SnapshotObject {
  key: string;
  dn: string;
  version: string;
  /** User attributes by name, values in the directory's order. */
  attributes: Record<string, string[]>;
}

function text(value: Buffer | string): string {
  return Buffer.isBuffer(value) ? value.toString('utf8') : value;
}

function valuesOf(entry: Entry, name: string): string[] {
  const value = entry[name];
  if (value === undefined) return [];
  return (Array.isArray(value) ? value : [value]).map((v) => text(v as Buffer | string));
}

function keyOf(entry: Entry): string {
  const uuid = valuesOf(entry, 'entryUUID')[0];
  if (uuid) return uuid.toLowerCase();
  const guid = entry['objectGUID'];
  if (Buffer.isBuffer(guid)) return guid.toString('hex');
  return `dn:${normalizeDn(entry.dn)}`;
}

/** What tells that an object changed, when the directory keeps one. */
const VERSION_ATTRIBUTES = ['entryCSN', 'uSNChanged', 'modifyTimestamp', 'whenChanged'];
const IDENTITY_ATTRIBUTES = ['entryUUID', 'objectGUID'];

function versionOf(entry: Entry): string | undefined {
  for (const name of VERSION_ATTRIBUTES) {
    const value = valuesOf(entry, name)[0];
    if (value !== undefined) return value;
  }
  return undefined;
}

function toObject(entry: Entry): SnapshotObject {
  const attributes: Record<string, string[]> = {};
  for (const name of Object.keys(entry)) {
    if (name === 'dn' || name === '*' || name === '+' || isOperationalAttribute(name)) continue;
    let list = valuesOf(entry, name);
    if (isSecretAttribute(name))
      list = list.map((v) => 'sha256:' + crypto.createHash('sha256').update(v).digest('hex'));
    if (list.length > 0) attributes[name] = list;
  }
  const version = versionOf(entry) ?? crypto.createHash('sha256').update(JSON.stringify(attributes)).digest('hex');
  const structural = valuesOf(entry, 'structuralObjectClass')[0];
  if (structural) attributes['structuralObjectClass'] = [structural];
  return { key: keyOf(entry), dn: entry.dn, version, attributes };
}

const OBJECT_ATTRIBUTES = ['*', ...IDENTITY_ATTRIBUTES, ...VERSION_ATTRIBUTES, 'structuralObjectClass'];

/** Every object under `baseDn` now. */
export async function readSnapshot(client: Client, baseDn: string): Promise<SnapshotObject[]> {
  const { searchEntries } = await client.search(baseDn, {
    scope: 'sub',
    filter: '(objectClass=*)',
    attributes: OBJECT_ATTRIBUTES,
    paged: { pageSize: PAGE_SIZE },
  });
  return searchEntries.map(toObject);
}

/** An object's identity, DN and version: what a poll reads of every object. */
export type ObjectVersion = Pick<SnapshotObject, 'key' | 'dn' | 'version'>;

/**
 * The identity, DN and version of every object under `baseDn`, or null when some object has no
 * version attribute (then only its attributes tell whether it changed). Reading these few
 * attributes costs about a fifth of reading whole objects (docs/directory.md, "Scale").
 */
export async function readVersions(client: Client, baseDn: string): Promise<ObjectVersion[] | null> {
  const { searchEntries } = await client.search(baseDn, {
    scope: 'sub',
    filter: '(objectClass=*)',
    attributes: [...IDENTITY_ATTRIBUTES, ...VERSION_ATTRIBUTES],
    paged: { pageSize: PAGE_SIZE },
  });
  const versions: ObjectVersion[] = [];
  for (const entry of searchEntries) {
    const version = versionOf(entry);
    if (version === undefined) return null;
    versions.push({ key: keyOf(entry), dn: entry.dn, version });
  }
  return versions;
}

const FETCH_BATCH = 100;

/** RFC 4515 section 3: a filter value's special characters and every byte of a binary value as `\XX`. */
function filterValue(value: string): string {
  return value.replace(/[\\*()\0]/g, (c) => '\\' + c.charCodeAt(0).toString(16).padStart(2, '0'));
}

function identityFilter(object: ObjectVersion): string {
  if (object.key.startsWith('dn:')) return '';
  if (/^[0-9a-f]{32}$/.test(object.key)) return `(objectGUID=${object.key.replace(/../g, (byte) => '\\' + byte)})`;
  return `(entryUUID=${filterValue(object.key)})`;
}

/** The whole objects of `wanted` (those still under `baseDn`), by identity, a batch per search. */
export async function readObjects(
  client: Client,
  baseDn: string,
  wanted: readonly ObjectVersion[],
): Promise<SnapshotObject[]> {
  const objects: SnapshotObject[] = [];
  const byIdentity = wanted.filter((o) => identityFilter(o) !== '');
  for (let i = 0; i < byIdentity.length; i += FETCH_BATCH) {
    const filter = `(|${byIdentity
      .slice(i, i + FETCH_BATCH)
      .map(identityFilter)
      .join('')})`;
    const { searchEntries } = await client.search(baseDn, { scope: 'sub', filter, attributes: OBJECT_ATTRIBUTES });
    objects.push(...searchEntries.map(toObject));
  }
  // Objects without an identity are known by their DN only.
  for (const object of wanted.filter((o) => identityFilter(o) === '')) {
    const { searchEntries } = await client
      .search(object.dn, { scope: 'base', filter: '(objectClass=*)', attributes: OBJECT_ATTRIBUTES })
      .catch(() => ({ searchEntries: [] as Entry[] }));
    objects.push(...searchEntries.map(toObject));
  }
  return objects;
}

function classesOf(object: SnapshotObject): { objectClasses: string[]; structuralClass: string } {
  const key = Object.keys(object.attributes).find((k) => k.toLowerCase() === 'objectclass');
  return {
    objectClasses: key ? object.attributes[key]! : [],
    structuralClass: object.attributes['structuralObjectClass']?.[0] ?? '',
  };
}

function attributesOf(object: SnapshotObject, side: 'before' | 'after'): AttributeChange[] {
  return Object.entries(object.attributes)
    .filter(([name]) => name !== 'structuralObjectClass')
    .map(([name, values]) => ({
      name,
      before: side === 'before' ? values : [],
      after: side === 'after' ? values : [],
    }));
}

function attributeDiff(before: SnapshotObject, after: SnapshotObject): AttributeChange[] {
  const names = new Map<string, string>();
  for (const name of [...Object.keys(before.attributes), ...Object.keys(after.attributes)]) {
    if (name !== 'structuralObjectClass' && !names.has(name.toLowerCase())) names.set(name.toLowerCase(), name);
  }
  const changes: AttributeChange[] = [];
  for (const name of names.values()) {
    const old = before.attributes[name] ?? [];
    const now = after.attributes[name] ?? [];
    if (old.length === now.length && old.every((v, i) => v === now[i])) continue;
    changes.push({ name, before: old, after: now });
  }
  return changes;
}

/** What changed between two snapshots, as changes made by `unknown` at `when`. */
export function compareSnapshots(
  previous: ReadonlyMap<string, SnapshotObject>,
  current: readonly SnapshotObject[],
  when: Date,
): DirectoryChange[] {
  const changes: DirectoryChange[] = [];
  const seen = new Set<string>();
  const base = { who: 'unknown', when };
  for (const object of current) {
    seen.add(object.key);
    const before = previous.get(object.key);
    if (!before) {
      changes.push({
        ...base,
        action: 'Added',
        dn: object.dn,
        ...classesOf(object),
        attributes: attributesOf(object, 'after'),
      });
      continue;
    }
    const dnChanged = normalizeDn(before.dn) !== normalizeDn(object.dn);
    if (!dnChanged && before.version === object.version) continue;
    const attributes = attributeDiff(before, object);
    if (dnChanged) {
      const moved = normalizeDn(parentDn(before.dn)) !== normalizeDn(parentDn(object.dn));
      changes.push({
        ...base,
        action: moved ? 'Moved' : 'Renamed',
        dn: before.dn,
        newDn: object.dn,
        ...classesOf(object),
        attributes,
      });
    } else if (attributes.length > 0) {
      changes.push({ ...base, action: 'Modified', dn: object.dn, ...classesOf(object), attributes });
    }
  }
  for (const [key, object] of previous) {
    if (seen.has(key)) continue;
    changes.push({
      ...base,
      action: 'Removed',
      dn: object.dn,
      ...classesOf(object),
      attributes: attributesOf(object, 'before'),
    });
  }
  return changes;
}
