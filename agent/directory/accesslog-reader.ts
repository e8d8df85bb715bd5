/**
 * Reads an OpenLDAP accesslog (slapo-accesslog(5)): every successful write under `cn=accesslog`
 * since a cursor (its `reqStart`, unique per operation and ordered as text), with the account
 * that made it (`reqAuthzID`), the modifications (`reqMod`: `attr:+ v` add, `attr:- v` delete,
 * `attr:= v` replace, `attr:#` increment) and the before-image (`reqOld`, with `logold`).
 * Searches are paged (RFC 2696).
 */
import type { Client, Entry } from 'ldapts';
import type { DirectoryChange, AttributeChange } from './directory-change.js';
import { isOperationalAttribute } from './directory-change.js';
import { isWithin, leafRdn, normalizeDn, parentDn } from './dn.js';
import { advance, generalizedTime, lookbackFrom, type AccesslogCursor } from './accesslog-cursor.js';

export const ACCESSLOG_BASE = 'cn=accesslog';
const PAGE_SIZE = 500;

const LOG_ATTRIBUTES = [
  'reqStart',
  'reqType',
  'reqAuthzID',
  'reqDN',
  'reqMod',
  'reqOld',
  'reqNewRDN',
  'reqNewSuperior',
  'reqNewDN',
  'reqEntryUUID',
];

function values(entry: Entry, name: string): string[] {
  const value = entry[name];
  if (value === undefined) return [];
  const list = Array.isArray(value) ? value : [value];
  return list.map((v) => (Buffer.isBuffer(v) ? v.toString('utf8') : String(v)));
}

const first = (entry: Entry, name: string): string => values(entry, name)[0] ?? '';

/** Whether the bound account can read an accesslog (a base search of `cn=accesslog` succeeds). */
export async function canReadAccesslog(client: Client): Promise<boolean> {
  try {
    const { searchEntries } = await client.search(ACCESSLOG_BASE, {
      scope: 'base',
      filter: '(objectClass=*)',
      attributes: ['1.1'],
    });
    return searchEntries.length === 1;
  } catch {
    return false;
  }
}

/** The `reqStart` of each write logged that matches `filter`. */
async function reqStarts(client: Client, filter: string): Promise<string[]> {
  const { searchEntries } = await client.search(ACCESSLOG_BASE, {
    scope: 'one',
    filter,
    attributes: ['reqStart'],
    paged: { pageSize: PAGE_SIZE },
  });
  return searchEntries.map((entry) => first(entry, 'reqStart'));
}

/** The baseline's cursor: past every write in the log now. */
export async function baselineCursor(client: Client): Promise<AccesslogCursor> {
  return advance({ newest: '', seen: [] }, await reqStarts(client, '(objectClass=auditWriteObject)'));
}

/** One write from the log, before the object's classes are known for modifies and renames. */
export interface LoggedWrite {
  reqStart: string;
  change: DirectoryChange;
  /** Set when the object classes must be read from the entry (modify, modrdn). */
  entryUuid: string;
  /** The object's entryUUID as logged (`reqEntryUUID`), whatever the operation; '' when not logged. */
  objectUuid: string;
}

interface Modification {
  attribute: string;
  op: '+' | '-' | '=' | '#';
  value: string | null;
}

function parseMod(line: string): Modification | null {
  const m = /^([^:]+):([+\-=#])(?: ([\s\S]*))?$/.exec(line);
  if (!m) return null;
  return { attribute: m[1]!, op: m[2] as Modification['op'], value: m[3] ?? null };
}

/** `attr: value` lines (reqOld) grouped by attribute, in order. */
function groupOld(lines: string[]): Map<string, { name: string; values: string[] }> {
  const out = new Map<string, { name: string; values: string[] }>();
  for (const line of lines) {
    const at = line.indexOf(':');
    if (at <= 0) continue;
    const name = line.slice(0, at);
    const value = line.slice(at + 1).replace(/^ /, '');
    const key = name.toLowerCase();
    const slot = out.get(key) ?? { name, values: [] };
    slot.values.push(value);
    out.set(key, slot);
  }
  return out;
}

function userAttributes(
  groups: Map<string, { name: string; values: string[] }>,
  side: 'before' | 'after',
): AttributeChange[] {
  return [...groups.values()]
    .filter((g) => !isOperationalAttribute(g.name))
    .map((g) => ({ name: g.name, before: side === 'before' ? g.values : [], after: side === 'after' ? g.values : [] }));
}

/** Applies `reqMod` to the before-image, attribute by attribute. */
function modifiedAttributes(
  mods: Modification[],
  old: Map<string, { name: string; values: string[] }>,
): AttributeChange[] {
  const order: string[] = [];
  const state = new Map<string, { name: string; before: string[]; after: string[]; replaced: boolean }>();
  for (const mod of mods) {
    if (isOperationalAttribute(mod.attribute)) continue;
    const key = mod.attribute.toLowerCase();
    let slot = state.get(key);
    if (!slot) {
      const before = old.get(key)?.values ?? [];
      slot = { name: mod.attribute, before, after: [...before], replaced: false };
      state.set(key, slot);
      order.push(key);
    }
    switch (mod.op) {
      case '+':
        if (mod.value !== null) slot.after.push(mod.value);
        break;
      case '-':
        slot.after = mod.value === null ? [] : slot.after.filter((v) => v !== mod.value);
        break;
      case '=':
        // A replace lists each new value on its own line; the first one clears the old ones.
        if (!slot.replaced) slot.after = [];
        slot.replaced = true;
        if (mod.value !== null) slot.after.push(mod.value);
        break;
      case '#':
        if (mod.value !== null && slot.after.length === 1)
          slot.after = [String(Number(slot.after[0]) + Number(mod.value))];
        break;
    }
  }
  return order.map((key) => {
    const { name, before, after } = state.get(key)!;
    return { name, before, after };
  });
}

function toWrite(entry: Entry): LoggedWrite | null {
  const type = first(entry, 'reqType').toLowerCase();
  const dn = first(entry, 'reqDN');
  const who = first(entry, 'reqAuthzID') || 'unknown';
  const reqStart = first(entry, 'reqStart');
  const when = generalizedTime(reqStart);
  const mods = values(entry, 'reqMod')
    .map(parseMod)
    .filter((m): m is Modification => m !== null);
  const old = groupOld(values(entry, 'reqOld'));
  const entryUuid = first(entry, 'reqEntryUUID');
  const base = { dn, who, when, objectClasses: [] as string[], structuralClass: '' };
  switch (type) {
    case 'add': {
      const added = new Map<string, { name: string; values: string[] }>();
      for (const mod of mods) {
        const key = mod.attribute.toLowerCase();
        const slot = added.get(key) ?? { name: mod.attribute, values: [] };
        if (mod.value !== null) slot.values.push(mod.value);
        added.set(key, slot);
      }
      const objectClasses = added.get('objectclass')?.values ?? [];
      const structuralClass = added.get('structuralobjectclass')?.values[0] ?? '';
      const change: DirectoryChange = {
        ...base,
        action: 'Added',
        objectClasses,
        structuralClass,
        attributes: userAttributes(added, 'after'),
      };
      return { reqStart, change, entryUuid: '', objectUuid: entryUuid };
    }
    case 'delete': {
      const objectClasses = old.get('objectclass')?.values ?? [];
      const structuralClass = old.get('structuralobjectclass')?.values[0] ?? '';
      const change: DirectoryChange = {
        ...base,
        action: 'Removed',
        objectClasses,
        structuralClass,
        attributes: userAttributes(old, 'before'),
      };
      return { reqStart, change, entryUuid: objectClasses.length > 0 ? '' : entryUuid, objectUuid: entryUuid };
    }
    case 'modify':
      return {
        reqStart,
        change: { ...base, action: 'Modified', attributes: modifiedAttributes(mods, old) },
        entryUuid,
        objectUuid: entryUuid,
      };
    case 'modrdn': {
      const newRdn = first(entry, 'reqNewRDN') || leafRdn(dn);
      const newSuperior = first(entry, 'reqNewSuperior');
      const newDn = first(entry, 'reqNewDN') || `${newRdn},${newSuperior || parentDn(dn)}`;
      const moved = newSuperior !== '' && normalizeDn(newSuperior) !== normalizeDn(parentDn(dn));
      return {
        reqStart,
        change: { ...base, action: moved ? 'Moved' : 'Renamed', newDn, attributes: modifiedAttributes(mods, old) },
        entryUuid,
        objectUuid: entryUuid,
      };
    }
    default:
      return null; // extended operations and the like change no object
  }
}

const WRITES = '(&(objectClass=auditWriteObject)(reqResult=0)';

/**
 * The writes under `baseDn` not read before (accesslog-cursor.ts), oldest first, and the cursor
 * after them. A first search lists only the `reqStart`s of the look-back window, so a write that
 * reached the log late is found without reading the window's writes again in full.
 */
export async function readWrites(
  client: Client,
  baseDn: string,
  cursor: AccesslogCursor,
): Promise<{ writes: LoggedWrite[]; cursor: AccesslogCursor }> {
  let from = cursor.newest;
  let seen = new Set(cursor.seen ?? []);
  if (cursor.newest !== '') {
    const recent = await reqStarts(client, `${WRITES}(reqStart>=${lookbackFrom(cursor.newest)}))`);
    // A cursor of an older agent names no writes: everything up to its newest was read.
    if (cursor.seen === null) seen = new Set(recent.filter((s) => s <= cursor.newest));
    for (const start of recent) if (start <= cursor.newest && !seen.has(start) && start < from) from = start;
  }
  const { searchEntries } = await client.search(ACCESSLOG_BASE, {
    scope: 'one',
    filter: from ? `${WRITES}(reqStart>=${from}))` : `${WRITES})`,
    attributes: LOG_ATTRIBUTES,
    paged: { pageSize: PAGE_SIZE },
  });
  const unread = searchEntries.filter((e) => !seen.has(first(e, 'reqStart')));
  const base = normalizeDn(baseDn);
  const writes = unread
    .sort((a, b) => (first(a, 'reqStart') < first(b, 'reqStart') ? -1 : 1))
    .map(toWrite)
    .filter((w): w is LoggedWrite => w !== null)
    .filter((w) => isWithin(normalizeDn(w.change.dn), base) || isWithin(normalizeDn(w.change.newDn ?? '\0'), base));
  const next = advance(
    { newest: cursor.newest, seen: [...seen] },
    unread.map((e) => first(e, 'reqStart')),
  );
  return { writes, cursor: next };
}

/** The object classes of the entry with this entryUUID now (modifies and renames do not log them). */
export async function classesOf(
  client: Client,
  baseDn: string,
  entryUuid: string,
): Promise<{ objectClasses: string[]; structuralClass: string }> {
  if (!/^[0-9a-f-]{36}$/i.test(entryUuid)) return { objectClasses: [], structuralClass: '' };
  const { searchEntries } = await client.search(baseDn, {
    scope: 'sub',
    filter: `(entryUUID=${entryUuid})`,
    attributes: ['objectClass', 'structuralObjectClass'],
  });
  const entry = searchEntries[0];
  if (!entry) return { objectClasses: [], structuralClass: '' };
  return { objectClasses: values(entry, 'objectClass'), structuralClass: first(entry, 'structuralObjectClass') };
}

type ObjectClasses = Awaited<ReturnType<typeof classesOf>>;

/**
 * Fills in the object classes of modifies and renames: read from the entry now, or, when the
 * entry is gone by the time of the poll (deleted later in the same batch of writes), taken from
 * the add or delete of the same object in the batch, which log them.
 */
export async function completeClasses(client: Client, baseDn: string, writes: readonly LoggedWrite[]): Promise<void> {
  const logged = new Map<string, ObjectClasses>();
  for (const write of writes) {
    const { objectClasses, structuralClass } = write.change;
    if (write.objectUuid !== '' && objectClasses.length > 0)
      logged.set(write.objectUuid, { objectClasses, structuralClass });
  }
  const known = new Map<string, ObjectClasses>();
  for (const write of writes) {
    if (write.entryUuid === '') continue;
    let classes = known.get(write.entryUuid);
    if (!classes) {
      classes = await classesOf(client, baseDn, write.entryUuid);
      if (classes.objectClasses.length === 0) classes = logged.get(write.entryUuid) ?? classes;
      known.set(write.entryUuid, classes);
    }
    write.change.objectClasses = classes.objectClasses;
    write.change.structuralClass = classes.structuralClass;
  }
}
