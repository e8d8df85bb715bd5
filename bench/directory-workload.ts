/**
 * The changes of one round of the directory benchmark: a mix of modifies (70 %), deletions,
 * renames and additions (10 % each) of bulk-loaded people, all sent at once on one connection
 * as the editor account (so the accesslog names it), each answered change timed by the client's
 * clock. Round r uses its own slice of people, so rounds never touch the same entry twice.
 */
import { Attribute, Change, Client } from 'ldapts';
import { bulkPerson, EDITOR_DN, EDITOR_PASSWORD, PEOPLE, person } from '../test/helpers/slapd-server.js';

export interface AppliedChange {
  /** What the record's `What` will be: the DN, after a rename the new one. */
  what: string;
  action: 'Modified' | 'Removed' | 'Renamed' | 'Added';
  /** When the server answered the operation (epoch milliseconds). */
  appliedAtMs: number;
}

export async function applyChanges(url: string, round: number, changes: number): Promise<AppliedChange[]> {
  const client = new Client({ url, timeout: 120_000 });
  await client.bind(EDITOR_DN, EDITOR_PASSWORD);
  try {
    const tenth = Math.floor(changes / 10);
    const modifies = changes - 3 * tenth;
    const offset = round * changes;
    const pending: Array<Promise<AppliedChange>> = [];
    const timed = (what: string, action: AppliedChange['action'], operation: Promise<void>): void => {
      pending.push(operation.then(() => ({ what, action, appliedAtMs: Date.now() })));
    };
    for (let i = 0; i < modifies; i++) {
      const { dn } = bulkPerson(offset + i);
      const replace = (type: string, value: string): Change =>
        new Change({ operation: 'replace', modification: new Attribute({ type, values: [value] }) });
      timed(
        dn,
        'Modified',
        client.modify(dn, [replace('description', `Changed in round ${round}`), replace('title', `Lead ${round}`)]),
      );
    }
    for (let i = 0; i < tenth; i++) {
      const { dn } = bulkPerson(offset + modifies + i);
      timed(dn, 'Removed', client.del(dn));
    }
    for (let i = 0; i < tenth; i++) {
      const { dn } = bulkPerson(offset + modifies + tenth + i);
      const newDn = `uid=renamed-${round}-${i},${PEOPLE}`;
      timed(newDn, 'Renamed', client.modifyDN(dn, newDn));
    }
    for (let i = 0; i < tenth; i++) {
      const uid = `added-${round}-${i}`;
      const dn = `uid=${uid},${PEOPLE}`;
      timed(dn, 'Added', client.add(dn, { ...person(uid), description: `Added in round ${round}` }));
    }
    return await Promise.all(pending);
  } finally {
    await client.unbind().catch(() => undefined);
  }
}
