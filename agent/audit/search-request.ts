/**
 * Reads the bodies of `POST activity_records/search` (ActivityRecordSearch / `{"FilterList"}`)
 * and `POST activity_records/enum` (a ContinuationMark element / a bare JSON string), in XML and
 * JSON (docs/audit-api.md). Filter errors become InputError naming the filter, operator or
 * value, with its location in XML terms.
 */
import {
  FilterError,
  lookupFilter,
  lookupTimeframe,
  pushCondition,
  textCondition,
  whenCondition,
  workingHoursCondition,
  type FilterCondition,
  type WhenValue,
} from '../../shared/audit-filters.js';
import { isJsonObject, parseFilterListJson } from '../../shared/audit-filter-json.js';
import { ErrorCodes, inputError, type AuditError } from './audit-errors.js';
import type { VendorProfile } from './vendor-profile.js';
import type { XmlElement } from './xml-document.js';
import { childrenOf, expectAttributes, expectRoot, textOf } from './xml-shape.js';

export interface SearchRequest {
  /** The FilterList, or null when the request only continues a mark. */
  conditions: FilterCondition[] | null;
  mark: string | null;
}

export function filterErrorToInput(error: FilterError): AuditError {
  return inputError(
    error.kind === 'conversion' ? ErrorCodes.conversion : ErrorCodes.invalidArgument,
    error.message,
    error.location,
  );
}

function withFilterErrors<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof FilterError) throw filterErrorToInput(error);
    throw error;
  }
}

function markText(element: XmlElement): string {
  expectAttributes(element);
  const mark = textOf(element);
  if (mark === '') throw inputError(ErrorCodes.invalidMark, 'ContinuationMark is empty', element.path);
  return mark;
}

export function searchFromXml(root: XmlElement, profile: VendorProfile): SearchRequest {
  expectRoot(root, 'ActivityRecordSearch', profile.recordsNamespace);
  expectAttributes(root);
  let conditions: FilterCondition[] | null = null;
  let mark: string | null = null;
  for (const child of childrenOf(root)) {
    if (child.name === 'ContinuationMark' && mark === null) mark = markText(child);
    else if (child.name === 'FilterList' && conditions === null)
      conditions = withFilterErrors(() => filterListFromXml(child));
    else
      throw inputError(
        ErrorCodes.invalidArgument,
        `unexpected element ${child.name} in ActivityRecordSearch`,
        child.path,
      );
  }
  return { conditions, mark };
}

function filterListFromXml(list: XmlElement): FilterCondition[] {
  expectAttributes(list);
  const out: FilterCondition[] = [];
  for (const element of childrenOf(list)) {
    const filter = lookupFilter(element.name);
    if (filter === null) throw new FilterError(`unknown filter "${element.name}"`, element.path);
    expectAttributes(element, ['Operator']);
    const operator = element.attributes.get('Operator');
    if (filter === 'When') {
      pushCondition(out, whenCondition(operator, whenFromXml(element), element.path), element.path);
    } else if (filter === 'WorkingHours') {
      const { from, to } = rangeChildren(element, false);
      pushCondition(out, workingHoursCondition(operator, from, to, element.path), element.path);
    } else {
      if (element.children.length > 0) throw new FilterError(`filter ${filter} takes text, not elements`, element.path);
      pushCondition(out, textCondition(filter, operator, element.text, element.path), element.path);
    }
  }
  if (out.length === 0) throw new FilterError('FilterList holds no filter', list.path);
  return out;
}

/** `<From>`/`<To>` children (When also allows one empty timeframe element instead). */
function rangeChildren(element: XmlElement, allowTimeframe: boolean): { from: string | null; to: string | null } {
  let from: string | null = null;
  let to: string | null = null;
  if (element.text !== '') throw new FilterError(`filter ${element.name} takes elements, not text`, element.path);
  for (const child of element.children) {
    expectAttributes(child);
    if (child.name === 'From' && from === null) from = textOf(child);
    else if (child.name === 'To' && to === null) to = textOf(child);
    else if (!(allowTimeframe && lookupTimeframe(child.name, false) !== null)) {
      throw new FilterError(`unexpected element ${child.name} in filter ${element.name}`, child.path);
    }
  }
  return { from, to };
}

function whenFromXml(element: XmlElement): WhenValue {
  const named = element.children.filter((c) => lookupTimeframe(c.name, false) !== null);
  if (named.length > 0) {
    if (element.children.length > 1) {
      throw new FilterError('filter When holds one timeframe, or From and/or To', element.path);
    }
    const timeframe = named[0]!;
    if (timeframe.text !== '' || timeframe.children.length > 0) {
      throw new FilterError(`timeframe ${timeframe.name} must be an empty element`, timeframe.path);
    }
    return { timeframe: lookupTimeframe(timeframe.name, false)! };
  }
  return rangeChildren(element, true);
}

export function searchFromJson(body: unknown): SearchRequest {
  if (!isJsonObject(body)) {
    throw inputError(
      ErrorCodes.invalidArgument,
      'the body must be a JSON object holding FilterList',
      '/ActivityRecordSearch',
    );
  }
  let conditions: FilterCondition[] | null = null;
  let mark: string | null = null;
  for (const [key, value] of Object.entries(body)) {
    const lower = key.toLowerCase();
    if (lower === 'continuationmark') {
      if (typeof value !== 'string' || value.trim() === '') {
        throw inputError(
          ErrorCodes.invalidMark,
          'ContinuationMark must be a non-empty string',
          '/ActivityRecordSearch/ContinuationMark',
        );
      }
      mark = value;
    } else if (lower === 'filterlist') {
      conditions = withFilterErrors(() => parseFilterListJson(value));
    } else {
      throw inputError(
        ErrorCodes.invalidArgument,
        `unexpected key "${key}" in the search body`,
        `/ActivityRecordSearch/${key}`,
      );
    }
  }
  return { conditions, mark };
}

export function markFromXml(root: XmlElement, profile: VendorProfile): string {
  expectRoot(root, 'ContinuationMark', profile.recordsNamespace);
  return markText(root);
}

export function markFromJson(body: unknown): string {
  if (typeof body !== 'string' || body.trim() === '') {
    throw inputError(
      ErrorCodes.invalidMark,
      'the body must be the continuation mark as a JSON string',
      '/ContinuationMark',
    );
  }
  return body;
}
