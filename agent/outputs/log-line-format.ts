/**
 * One log line per record. TSV columns, in this order (after the
 * file-activity TSV of docs/activity-pipeline.md):
 *
 *   1 Time (UTC)     `YYYY-MM-DDTHH:MM:SS.mmmZ`
 *   2 Host           the machine (the record's Where)
 *   3 User ID        numeric user id of the actor (docs/attribution.md), else of the agent's
 *                    account (POSIX); empty on Windows
 *   4 Operation      Add, Del, Ren (Renamed and Moved) or Upd
 *   5 Object Type    FILE or FOLD
 *   6 Path           the path (before, for Ren)
 *   7 Rename Path    the path after, for Ren; else empty
 *   8 Process or IP  the actor's executable; empty when the source cannot tell (a watcher)
 *   9 User Name      `HOST\user`: the record's Who
 *
 * A directory record (docs/directory.md) fills the same columns: Host is the LDAP server, User ID
 * and Process or IP are empty, Operation comes from its Action, Object Type is its objectClass,
 * Path its DN (the DN before, for a move or rename) and Rename Path the DN after, User Name the DN
 * of the account that made the change.
 *
 * A backslash inside a value is written `\\`, so `C:\dir` is `C:\\dir` and `HOST\user` is
 * `HOST\\user`: that is what keeps a literal backslash-n in a POSIX file name apart from an
 * escaped line feed. A tab, line feed or carriage return (legal in POSIX file names) is written
 * `\t`, `\n`, `\r`; a vertical tab and a form feed `\v`, `\f`; NEL, LINE SEPARATOR and PARAGRAPH
 * SEPARATOR `\u0085`, `\u2028`, `\u2029`, because some line splitters (SIEM collectors) end a
 * line there. Every record stays one line and one column. JSON files hold one activity record
 * per line, as the audit API shows it.
 */
import type { StoredItem } from '../pipeline/pipeline-item.js';

export const TSV_HEADER =
  'Time (UTC)\tHost\tUser ID\tOperation\tObject Type\tPath\tRename Path\tProcess or IP\tUser Name\n';

const OPERATION: Record<string, string> = {
  Added: 'Add',
  Removed: 'Del',
  Renamed: 'Ren',
  Moved: 'Ren',
  Modified: 'Upd',
  Read: 'Read',
};

const ESCAPES: Record<string, string> = {
  '\\': '\\\\',
  '\t': '\\t',
  '\n': '\\n',
  '\r': '\\r',
  '\v': '\\v',
  '\f': '\\f',
  '\u0085': '\\u0085',
  '\u2028': '\\u2028',
  '\u2029': '\\u2029',
};
const NEEDS_ESCAPE = /[\\\t\n\r\v\f\u0085\u2028\u2029]/;
const NEEDS_ESCAPE_ALL = new RegExp(NEEDS_ESCAPE.source, 'g');

export function tsvField(value: string): string {
  return NEEDS_ESCAPE.test(value) ? value.replace(NEEDS_ESCAPE_ALL, (c) => ESCAPES[c]!) : value;
}

let lastTimeMs = Number.NaN;
let lastTime = '';
// A host's lines repeat the same Where and Who: escape each once (compared by identity first).
let lastWhere = '';
let lastWhereField = '';
let lastWho = '';
let lastWhoField = '';

export function tsvLine(item: StoredItem, userId: number | null): string {
  const record = item.stored;
  const file = item.file;
  if (item.timeMs !== lastTimeMs) {
    lastTimeMs = item.timeMs;
    lastTime = new Date(item.timeMs).toISOString();
  }
  const operation = OPERATION[file?.operation ?? record.Action] ?? tsvField(record.Action);
  const objectType = file ? (file.objectType === 'Folder' ? 'FOLD' : 'FILE') : tsvField(record.ObjectType);
  const dnBefore = file ? undefined : dnBeforeMove(record);
  if (record.Where !== lastWhere) {
    lastWhere = record.Where;
    lastWhereField = tsvField(record.Where);
  }
  if (record.Who !== lastWho) {
    lastWho = record.Who;
    lastWhoField = tsvField(record.Who);
  }
  return (
    lastTime +
    '\t' +
    lastWhereField +
    '\t' +
    (file ? uidField(file.uid === undefined ? userId : file.uid) : '') +
    '\t' +
    operation +
    '\t' +
    objectType +
    '\t' +
    tsvField(file ? file.path : (dnBefore ?? record.What)) +
    '\t' +
    tsvField(file ? (file.newPath ?? '') : dnBefore === undefined ? '' : record.What) +
    '\t' +
    (file?.process === undefined ? '' : tsvField(file.process)) +
    '\t' +
    lastWhoField +
    '\n'
  );
}

/** A moved or renamed directory object's DN before the change (its `DN` detail), else undefined. */
function dnBeforeMove(record: StoredItem['stored']): string | undefined {
  if (record.Action !== 'Moved' && record.Action !== 'Renamed') return undefined;
  return record.DetailList?.find((d) => d.PropertyName === 'DN')?.Before;
}

function uidField(uid: number | null): string {
  return uid === null ? '' : String(uid);
}

export function jsonLine(item: StoredItem): string {
  return JSON.stringify(item.stored) + '\n';
}

/** The time a line describes (first column or `When`), for a file's activityFrom/To. */
export function lineTime(line: string, format: 'Tsv' | 'Json'): string | null {
  if (format === 'Tsv') {
    const first = line.slice(0, line.indexOf('\t'));
    return /^\d{4}-\d\d-\d\dT[\d:.]+Z$/.test(first) ? first : null;
  }
  try {
    const when = (JSON.parse(line) as { When?: unknown }).When;
    return typeof when === 'string' ? when : null;
  } catch {
    return null;
  }
}
