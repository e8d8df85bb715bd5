/**
 * One poll of the snapshot comparison after its baseline (docs/directory.md, "How changes are
 * read"). Each poll lists only the identity, DN and version of every object; whole objects are
 * read, from the directory and from the saved snapshot, only for those whose version or DN
 * differs, that are new, or that are gone. Reading whole objects every poll cost about five times
 * as much and, at 50,000 entries, made polls longer than the polling interval. A directory whose
 * objects carry no version attribute is still read whole and compared attribute by attribute.
 */
import type { Client } from 'ldapts';
import type { DirectoryChange } from './directory-change.js';
import type { DirectoryStateTable, SnapshotOp } from './directory-state.js';
import {
  compareSnapshots,
  readObjects,
  readSnapshot,
  readVersions,
  type ObjectVersion,
  type SnapshotObject,
} from './snapshot-reader.js';

export interface SnapshotPoll {
  changes: DirectoryChange[];
  ops: SnapshotOp[];
}

/** Puts for the objects read whose version or DN changed, deletes for saved objects no longer there. */
function opsOf(
  previous: ReadonlyMap<string, ObjectVersion>,
  read: readonly SnapshotObject[],
  current: ReadonlySet<string>,
): SnapshotOp[] {
  return [
    ...read
      .filter((o) => previous.get(o.key)?.version !== o.version || previous.get(o.key)?.dn !== o.dn)
      .map((object): SnapshotOp => ({ op: 'put', object })),
    ...[...previous.keys()].filter((key) => !current.has(key)).map((key): SnapshotOp => ({ op: 'delete', key })),
  ];
}

export async function pollSnapshot(
  client: Client,
  baseDn: string,
  state: DirectoryStateTable,
  domainId: string,
  when: Date,
): Promise<SnapshotPoll> {
  const versions = await readVersions(client, baseDn);
  if (versions === null) {
    const now = await readSnapshot(client, baseDn);
    const previous = state.snapshot(domainId);
    const current = new Set(now.map((o) => o.key));
    return { changes: compareSnapshots(previous, now, when), ops: opsOf(previous, now, current) };
  }
  const previous = state.versions(domainId);
  const changed = versions.filter(
    (v) => previous.get(v.key)?.version !== v.version || previous.get(v.key)?.dn !== v.dn,
  );
  const changedKeys = new Set(changed.map((v) => v.key));
  const now = await readObjects(client, baseDn, changed);
  // An object listed as changed but gone (or moved out of the base DN) by the time it is read is removed.
  const current = new Set([
    ...versions.filter((v) => !changedKeys.has(v.key)).map((v) => v.key),
    ...now.map((o) => o.key),
  ]);
  const before = state.objects(
    domainId,
    [...previous.keys()].filter((key) => changedKeys.has(key) || !current.has(key)),
  );
  return { changes: compareSnapshots(before, now, when), ops: opsOf(previous, now, current) };
}
