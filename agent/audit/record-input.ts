/**
 * Reads the body of `POST activity_records/` (write): an XML ActivityRecordList, or a JSON array
 * of records (`{"ActivityRecordList": [...]}` is accepted too), into records ready for the store
 * (docs/audit-api.md "ActivityRecord elements"). Who, Action, What, When, Where and ObjectType are
 * required; RID is assigned by the store and DataSource is forced to `Vigil API` whatever is
 * sent (docs/audit-api.md: the server sets its own name), so both are accepted and ignored, as is
 * IsArchiveOnly (Vigil keeps one store). MonitoringPlan takes a Name (an ID is assigned by the
 * product, so one sent is ignored). Any other field is an InputError naming it. One bad record
 * refuses the whole request: nothing is written.
 */
import { DataSources, type ActivityDetail, type NewActivityRecord } from '../../shared/activity-record.js';
import { parseDateTime } from '../../shared/audit-when.js';
import { isJsonObject } from '../../shared/audit-filter-json.js';
import { hasLoneSurrogate } from '../../shared/audit-filters.js';
import { ErrorCodes, inputError } from './audit-errors.js';
import { RECORD_ACTIONS, isRecordAction } from './record-actions.js';
import type { VendorProfile } from './vendor-profile.js';
import type { XmlElement } from './xml-document.js';
import { childrenOf, expectAttributes, expectRoot, textOf } from './xml-shape.js';

/** Records per write request (docs/audit-api.md recommends at most 1,000). */
export const MAX_RECORDS_PER_WRITE = 1000;

const REQUIRED = ['Who', 'Action', 'What', 'When', 'Where', 'ObjectType'] as const;
const SHORT = 255;
const LONG = 1_048_576;
const LIMITS: Record<string, number> = {
  Who: SHORT,
  Action: SHORT,
  Where: SHORT,
  ObjectType: SHORT,
  What: LONG,
  Workstation: LONG,
  Name: SHORT,
  ItemName: LONG,
  PropertyName: SHORT,
  Before: LONG,
  After: LONG,
  Message: LONG,
};

/** A record's fields as read from either syntax, before checks. */
interface RawRecord {
  fields: Map<string, string>;
  plan: string | null;
  item: string | null;
  details: ActivityDetail[] | null;
  path: string;
}

/**
 * XML cannot carry U+0000 at all (not even as a character reference), so such a record could not
 * be read back in XML, and PostgreSQL text cannot hold it, so a fleet member could never forward it.
 */
function nulRefused(field: string, location: string): Error {
  return inputError(
    ErrorCodes.invalidArgument,
    `${field} contains the character U+0000, which a record cannot hold`,
    location,
  );
}

function checkText(value: string, field: string, location: string): string {
  if (value.trim() === '') throw inputError(ErrorCodes.invalidArgument, `${field} must not be empty`, location);
  // Stored text is UTF-8, where half a surrogate pair cannot exist: SQLite would keep U+FFFD while
  // the record chain hashed the value as sent, and `vigil verify` would report a change.
  if (hasLoneSurrogate(value)) {
    throw inputError(ErrorCodes.invalidArgument, `${field} is not valid Unicode text (a lone surrogate)`, location);
  }
  if (value.includes('\u0000')) throw nulRefused(field, location);
  const limit = LIMITS[field] ?? SHORT;
  if (value.length > limit) {
    throw inputError(ErrorCodes.invalidArgument, `${field} is longer than ${limit} characters`, location);
  }
  return value;
}

/** `position`: the record's place in the request, counted from 1, for the error messages. */
function finish(raw: RawRecord, position: number): NewActivityRecord {
  for (const field of REQUIRED) {
    if (!raw.fields.has(field)) {
      throw inputError(ErrorCodes.invalidArgument, `the record has no ${field} (required)`, raw.path);
    }
  }
  const get = (field: string): string => checkText(raw.fields.get(field)!, field, `${raw.path}/${field}`);
  const action = get('Action');
  if (!isRecordAction(action)) {
    throw inputError(
      ErrorCodes.invalidArgument,
      `record ${position}: Action "${action}" is not one of the documented actions (${RECORD_ACTIONS.join(', ')})`,
      `${raw.path}/Action`,
    );
  }
  const when = get('When');
  if (parseDateTime(when) === null) {
    throw inputError(
      ErrorCodes.conversion,
      `When "${when}" is not a date-time with an offset, like 2026-11-20T10:15:30Z`,
      `${raw.path}/When`,
    );
  }
  const record: NewActivityRecord = {
    Who: get('Who'),
    Action: action,
    What: get('What'),
    When: when,
    Where: get('Where'),
    ObjectType: get('ObjectType'),
    DataSource: DataSources.api,
  };
  if (raw.plan !== null)
    record.MonitoringPlan = { Name: checkText(raw.plan, 'Name', `${raw.path}/MonitoringPlan/Name`) };
  if (raw.item !== null) record.Item = { Name: checkText(raw.item, 'ItemName', `${raw.path}/Item/Name`) };
  if (raw.fields.has('Workstation')) record.Workstation = get('Workstation');
  if (raw.details !== null && raw.details.length > 0) record.DetailList = raw.details;
  return record;
}

const SIMPLE_FIELDS = new Set(['Who', 'Action', 'What', 'When', 'Where', 'ObjectType', 'Workstation']);
const IGNORED_FIELDS = new Set(['RID', 'DataSource', 'IsArchiveOnly']);

function tooMany(location: string): never {
  throw inputError(
    ErrorCodes.invalidArgument,
    `at most ${MAX_RECORDS_PER_WRITE} records per request; send the rest in another request`,
    location,
  );
}

// ---- XML ----

export function recordsFromXml(root: XmlElement, profile: VendorProfile): NewActivityRecord[] {
  expectRoot(root, 'ActivityRecordList', profile.recordsNamespace);
  expectAttributes(root);
  const out: NewActivityRecord[] = [];
  for (const element of childrenOf(root)) {
    if (element.name !== 'ActivityRecord') {
      throw inputError(
        ErrorCodes.invalidArgument,
        `unexpected element ${element.name} in ActivityRecordList`,
        element.path,
      );
    }
    if (out.length >= MAX_RECORDS_PER_WRITE) tooMany(element.path);
    out.push(finish(rawFromXml(element), out.length + 1));
  }
  return out;
}

function rawFromXml(element: XmlElement): RawRecord {
  expectAttributes(element);
  const raw: RawRecord = { fields: new Map(), plan: null, item: null, details: null, path: element.path };
  const once = (name: string, at: string): void => {
    if (raw.fields.has(name)) throw inputError(ErrorCodes.invalidArgument, `${name} appears twice in the record`, at);
  };
  for (const child of childrenOf(element)) {
    expectAttributes(child);
    if (SIMPLE_FIELDS.has(child.name)) {
      once(child.name, child.path);
      raw.fields.set(child.name, textOf(child));
    } else if (child.name === 'MonitoringPlan' || child.name === 'Item') {
      const name = nameChild(child, child.name === 'MonitoringPlan' ? ['ID'] : []);
      if (child.name === 'MonitoringPlan') raw.plan = name;
      else raw.item = name;
    } else if (child.name === 'DetailList') {
      raw.details = childrenOf(child).map((detail) => detailFromXml(detail));
    } else if (!IGNORED_FIELDS.has(child.name)) {
      throw inputError(ErrorCodes.invalidArgument, `unknown record field ${child.name}`, child.path);
    }
  }
  return raw;
}

function nameChild(element: XmlElement, ignored: readonly string[]): string {
  let name: string | null = null;
  for (const child of childrenOf(element)) {
    expectAttributes(child);
    if (child.name === 'Name' && name === null) name = textOf(child);
    else if (!ignored.includes(child.name)) {
      throw inputError(ErrorCodes.invalidArgument, `unexpected element ${child.name} in ${element.name}`, child.path);
    }
  }
  if (name === null) throw inputError(ErrorCodes.invalidArgument, `${element.name} needs a Name`, element.path);
  return name;
}

function detailFromXml(element: XmlElement): ActivityDetail {
  if (element.name !== 'Detail') {
    throw inputError(ErrorCodes.invalidArgument, `unexpected element ${element.name} in DetailList`, element.path);
  }
  expectAttributes(element);
  const values: Record<string, string> = {};
  for (const child of childrenOf(element)) {
    expectAttributes(child);
    if (!['PropertyName', 'Before', 'After', 'Message'].includes(child.name) || child.name in values) {
      throw inputError(ErrorCodes.invalidArgument, `unexpected element ${child.name} in Detail`, child.path);
    }
    values[child.name] = textOf(child);
  }
  return detailFrom(values, element.path);
}

function detailFrom(values: Record<string, string>, path: string): ActivityDetail {
  if (values['PropertyName'] === undefined) {
    throw inputError(ErrorCodes.invalidArgument, 'a Detail needs a PropertyName', path);
  }
  const detail: ActivityDetail = {
    PropertyName: checkText(values['PropertyName'], 'PropertyName', `${path}/PropertyName`),
  };
  for (const field of ['Before', 'After', 'Message'] as const) {
    const value = values[field];
    if (value === undefined) continue;
    if (value.length > LONG) throw inputError(ErrorCodes.invalidArgument, `${field} is too long`, `${path}/${field}`);
    if (value.includes('\u0000')) throw nulRefused(field, `${path}/${field}`);
    detail[field] = value;
  }
  return detail;
}

// ---- JSON ----

const canonicalKey = (key: string, known: readonly string[]): string | null =>
  known.find((k) => k.toLowerCase() === key.toLowerCase()) ?? null;

const RECORD_KEYS = [
  'Who',
  'Action',
  'What',
  'When',
  'Where',
  'ObjectType',
  'Workstation',
  'MonitoringPlan',
  'Item',
  'DetailList',
  'RID',
  'DataSource',
  'IsArchiveOnly',
] as const;

export function recordsFromJson(body: unknown): NewActivityRecord[] {
  let list: unknown = body;
  if (isJsonObject(body)) {
    const keys = Object.keys(body);
    if (keys.length !== 1 || keys[0]!.toLowerCase() !== 'activityrecordlist') {
      throw inputError(
        ErrorCodes.invalidArgument,
        'the body must be a JSON array of activity records',
        '/ActivityRecordList',
      );
    }
    list = body[keys[0]!];
  }
  if (!Array.isArray(list)) {
    throw inputError(
      ErrorCodes.invalidArgument,
      'the body must be a JSON array of activity records',
      '/ActivityRecordList',
    );
  }
  if (list.length > MAX_RECORDS_PER_WRITE) tooMany(`/ActivityRecordList/ActivityRecord[${MAX_RECORDS_PER_WRITE + 1}]`);
  return list.map((item, index) =>
    finish(rawFromJson(item, `/ActivityRecordList/ActivityRecord[${index + 1}]`), index + 1),
  );
}

function stringAt(value: unknown, field: string, at: string): string {
  if (typeof value !== 'string') throw inputError(ErrorCodes.invalidArgument, `${field} must be a string`, at);
  return value;
}

function rawFromJson(item: unknown, path: string): RawRecord {
  if (!isJsonObject(item))
    throw inputError(ErrorCodes.invalidArgument, 'an activity record must be a JSON object', path);
  const raw: RawRecord = { fields: new Map(), plan: null, item: null, details: null, path };
  for (const [key, value] of Object.entries(item)) {
    const field = canonicalKey(key, RECORD_KEYS);
    const at = `${path}/${field ?? key}`;
    if (field === null) throw inputError(ErrorCodes.invalidArgument, `unknown record field ${key}`, at);
    if (raw.fields.has(field)) throw inputError(ErrorCodes.invalidArgument, `${field} appears twice in the record`, at);
    if (SIMPLE_FIELDS.has(field)) raw.fields.set(field, stringAt(value, field, at));
    else if (field === 'MonitoringPlan' || field === 'Item') {
      if (!isJsonObject(value))
        throw inputError(ErrorCodes.invalidArgument, `${field} must be an object with Name`, at);
      let name: string | null = null;
      for (const [k, v] of Object.entries(value)) {
        const sub = canonicalKey(k, field === 'MonitoringPlan' ? ['Name', 'ID'] : ['Name']);
        if (sub === null) throw inputError(ErrorCodes.invalidArgument, `unexpected key ${k} in ${field}`, `${at}/${k}`);
        if (sub === 'Name') name = stringAt(v, 'Name', `${at}/Name`);
      }
      if (name === null) throw inputError(ErrorCodes.invalidArgument, `${field} needs a Name`, at);
      if (field === 'MonitoringPlan') raw.plan = name;
      else raw.item = name;
    } else if (field === 'DetailList') {
      if (!Array.isArray(value)) throw inputError(ErrorCodes.invalidArgument, 'DetailList must be an array', at);
      raw.details = value.map((d, i) => {
        const dAt = `${at}/Detail[${i + 1}]`;
        if (!isJsonObject(d)) throw inputError(ErrorCodes.invalidArgument, 'a Detail must be an object', dAt);
        const values: Record<string, string> = {};
        for (const [k, v] of Object.entries(d)) {
          const sub = canonicalKey(k, ['PropertyName', 'Before', 'After', 'Message']);
          if (sub === null || sub in values) {
            throw inputError(ErrorCodes.invalidArgument, `unexpected key ${k} in Detail`, `${dAt}/${k}`);
          }
          values[sub] = stringAt(v, sub, `${dAt}/${sub}`);
        }
        return detailFrom(values, dAt);
      });
    }
    // RID, DataSource and IsArchiveOnly: accepted and ignored (see the top of this file).
  }
  return raw;
}
