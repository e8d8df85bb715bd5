/**
 * The audit search filter model (docs/audit-api.md): filter names, operators,
 * conditions and the combination rule. Pure, so the agent (which turns it into SQL) and the
 * console's activity search (which builds it) share one definition.
 *
 * Combination rule (docs/audit-api.md "Combining filters"): different filters AND; within one
 * filter, the positive conditions (Contains, Equals, StartsWith, EndsWith, InGroup) OR together
 * and the negative ones (DoesNotContain, NotEqualTo, NotInGroup) AND together, and the two
 * groups AND.
 */
import { parseDateTime, parseTimeOfDay } from './audit-when.js';

export const TEXT_OPERATORS = ['Contains', 'DoesNotContain', 'Equals', 'NotEqualTo', 'StartsWith', 'EndsWith'] as const;
export const GROUP_OPERATORS = ['InGroup', 'NotInGroup'] as const;
export const OPERATORS = [...TEXT_OPERATORS, ...GROUP_OPERATORS] as const;
export type Operator = (typeof OPERATORS)[number];
export type EqualityOperator = 'Equals' | 'NotEqualTo';

const NEGATIVE: ReadonlySet<Operator> = new Set<Operator>(['DoesNotContain', 'NotEqualTo', 'NotInGroup']);
export const isNegative = (operator: Operator): boolean => NEGATIVE.has(operator);

/** Filters whose value is a string matched against a record field. */
export const TEXT_FILTERS = [
  'RID',
  'Who',
  'Where',
  'ObjectType',
  'What',
  'DataSource',
  'MonitoringPlan',
  'Item',
  'Workstation',
  'Detail',
  'Before',
  'After',
  'Action',
] as const;
export const FILTERS = [...TEXT_FILTERS, 'When', 'WorkingHours'] as const;
export type TextFilter = (typeof TEXT_FILTERS)[number];
export type FilterName = (typeof FILTERS)[number];

export interface FilterSpec {
  operators: readonly Operator[];
  /** Used when a value carries no operator (docs/audit-api.md: the first operator listed). */
  defaultOperator: Operator;
  /** Longest accepted value (docs/audit-api.md "Max length"); longer fields use MAX_VALUE_LENGTH. */
  maxLength: number;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Half a UTF-16 pair: text that UTF-8 storage cannot hold (it would become U+FFFD). */
export function hasLoneSurrogate(value: string): boolean {
  return LONE_SURROGATE.test(value);
}

/** Values longer than this are refused: a search body is small, and so is any useful filter. */
export const MAX_VALUE_LENGTH = 4096;
/** Conditions per search; bounds the SQL a search can produce. */
export const MAX_CONDITIONS = 64;
/** Characters of all values of one search together; keeps continuation marks small. */
export const MAX_TOTAL_VALUE_LENGTH = 16_384;
/**
 * Substring tests (Contains, DoesNotContain) cost the length of the value times the length of
 * the field text they look at (store/text-match.ts); these two caps keep one record's test to a
 * few milliseconds (docs/audit-api.md "Limits"). A substring worth searching for is a word, a
 * name or a path component, not a paragraph.
 */
export const MAX_SUBSTRING_LENGTH = 256;
/** Characters of the Contains and DoesNotContain values of one search together. */
export const MAX_SUBSTRING_TOTAL = 1024;
const SUBSTRING_OPERATORS: ReadonlySet<Operator> = new Set<Operator>(['Contains', 'DoesNotContain']);
export const isSubstringOperator = (operator: Operator): boolean => SUBSTRING_OPERATORS.has(operator);

const text = (maxLength = MAX_VALUE_LENGTH): FilterSpec => ({
  operators: TEXT_OPERATORS,
  defaultOperator: 'Contains',
  maxLength,
});
const equality: FilterSpec = { operators: ['Equals', 'NotEqualTo'], defaultOperator: 'Equals', maxLength: 255 };

export const FILTER_SPECS: Readonly<Record<FilterName, FilterSpec>> = {
  RID: text(49),
  Who: { operators: OPERATORS, defaultOperator: 'Contains', maxLength: 255 },
  Where: text(255),
  ObjectType: text(255),
  What: text(),
  DataSource: text(),
  MonitoringPlan: text(255),
  Item: text(),
  Workstation: text(),
  Detail: text(),
  Before: text(),
  After: text(),
  Action: equality,
  When: equality,
  WorkingHours: equality,
};

export const TIMEFRAMES = ['Today', 'Yesterday', 'LastSevenDays', 'LastThirtyDays'] as const;
export type Timeframe = (typeof TIMEFRAMES)[number];

/** A When value: a named timeframe, or a range with at least one end (ISO 8601 with offset). */
export type WhenValue = { timeframe: Timeframe } | { from: string | null; to: string | null };

export interface TextCondition {
  filter: TextFilter;
  operator: Operator;
  value: string;
}
export interface WhenCondition {
  filter: 'When';
  operator: EqualityOperator;
  value: WhenValue;
}
export interface WorkingHoursCondition {
  filter: 'WorkingHours';
  operator: EqualityOperator;
  /** Times of day with an offset, `HH:MM:SS(Z|±HH:MM)`; the window is [from, to). */
  value: { from: string; to: string };
}
export type FilterCondition = TextCondition | WhenCondition | WorkingHoursCondition;

/** A filter list that does not validate; `location` points at the offending part in XML terms. */
export class FilterError extends Error {
  constructor(
    message: string,
    readonly location: string,
    /** `conversion`: the value does not convert to its type (a date that is not a date). */
    readonly kind: 'value' | 'conversion' = 'value',
  ) {
    super(message);
    this.name = 'FilterError';
  }
}

/** A filter name as compared: case and white space do not count (`Monitoring Plan` = `MonitoringPlan`). */
const filterKey = (name: string): string => name.replace(/\s+/g, '').toLowerCase();
const byFilterKey = new Map<string, FilterName>(FILTERS.map((name) => [filterKey(name), name]));
const operatorByLowerName = new Map<string, Operator>(OPERATORS.map((name) => [name.toLowerCase(), name]));
const timeframeByLowerName = new Map<string, Timeframe>(TIMEFRAMES.map((name) => [name.toLowerCase(), name]));

/**
 * Finds a filter by name, in JSON keys and XML element names alike, without regard to case or
 * white space: the filter table of docs/audit-api.md writes "Monitoring Plan" and a client sends
 * that key (docs/audit-api.md "Compatibility").
 */
export function lookupFilter(name: string): FilterName | null {
  return byFilterKey.get(filterKey(name)) ?? null;
}

export function lookupOperator(name: string, caseInsensitive: boolean): Operator | null {
  const found = operatorByLowerName.get(name.toLowerCase()) ?? null;
  if (found === null || caseInsensitive) return found;
  return found === name ? found : null;
}

export function lookupTimeframe(name: string, caseInsensitive: boolean): Timeframe | null {
  const found = timeframeByLowerName.get(name.toLowerCase()) ?? null;
  if (found === null || caseInsensitive) return found;
  return found === name ? found : null;
}

/** The operator a value names (or the filter's default), refused when it does not apply to the filter. */
export function checkOperator(filter: FilterName, operatorName: string | undefined, location: string): Operator {
  const spec = FILTER_SPECS[filter];
  if (operatorName === undefined) return spec.defaultOperator;
  const operator = lookupOperator(operatorName, true);
  if (operator === null) {
    throw new FilterError(
      `unknown operator "${operatorName}" for filter ${filter}; use one of ${spec.operators.join(', ')}`,
      location,
    );
  }
  if (!spec.operators.includes(operator)) {
    throw new FilterError(
      `operator ${operator} does not apply to filter ${filter}; use one of ${spec.operators.join(', ')}`,
      location,
    );
  }
  return operator;
}

export function textCondition(
  filter: TextFilter,
  operatorName: string | undefined,
  value: string,
  location: string,
): TextCondition {
  const operator = checkOperator(filter, operatorName, location);
  if (value.length === 0) throw new FilterError(`filter ${filter} needs a value`, location);
  // SQLite reads LIKE patterns as C strings: a NUL would end the pattern early and "Contains NUL"
  // would match every record. XML cannot carry one either, so JSON may not (a property test).
  if (value.includes('\u0000')) {
    throw new FilterError(
      `the value of filter ${filter} holds the character U+0000 (NUL), which is not allowed`,
      location,
    );
  }
  // A lone surrogate (JSON "\ud800") is half a character: stored text is UTF-8, where it cannot
  // exist, so it would silently match as U+FFFD. Refused like any value that is not text.
  if (LONE_SURROGATE.test(value)) {
    throw new FilterError(`the value of filter ${filter} is not valid Unicode text (a lone surrogate)`, location);
  }
  const max = FILTER_SPECS[filter].maxLength;
  if (value.length > max) {
    throw new FilterError(`the value of filter ${filter} is longer than ${max} characters`, location);
  }
  if (isSubstringOperator(operator) && value.length > MAX_SUBSTRING_LENGTH) {
    throw new FilterError(
      `the ${operator} value of filter ${filter} is longer than ${MAX_SUBSTRING_LENGTH} characters`,
      location,
    );
  }
  return { filter, operator, value };
}

export function whenCondition(operatorName: string | undefined, value: WhenValue, location: string): WhenCondition {
  const operator = checkOperator('When', operatorName, location) as EqualityOperator;
  if (!('timeframe' in value)) {
    if (value.from === null && value.to === null) {
      throw new FilterError('filter When needs a timeframe or a From and/or To date-time', location);
    }
    const from = value.from === null ? null : checkDateTime(value.from, `${location}/From`);
    const to = value.to === null ? null : checkDateTime(value.to, `${location}/To`);
    if (from !== null && to !== null && from >= to) {
      throw new FilterError('filter When: From must be earlier than To', location);
    }
  }
  return { filter: 'When', operator, value };
}

export function workingHoursCondition(
  operatorName: string | undefined,
  from: string | null,
  to: string | null,
  location: string,
): WorkingHoursCondition {
  const operator = checkOperator('WorkingHours', operatorName, location) as EqualityOperator;
  if (from === null || to === null) {
    throw new FilterError('filter WorkingHours needs both From and To, e.g. 09:00:00+01:00', location);
  }
  const start = checkTime(from, `${location}/From`);
  const end = checkTime(to, `${location}/To`);
  if (start === end) throw new FilterError('filter WorkingHours: From and To must differ', location);
  return { filter: 'WorkingHours', operator, value: { from, to } };
}

function checkDateTime(value: string, location: string): number {
  const ms = parseDateTime(value);
  if (ms === null) {
    throw new FilterError(
      `"${value}" is not a date-time with an offset, like 2026-11-20T10:15:30Z or 2026-11-20T10:15:30+02:00`,
      location,
      'conversion',
    );
  }
  return ms;
}

function checkTime(value: string, location: string): number {
  const ms = parseTimeOfDay(value);
  if (ms === null) {
    throw new FilterError(
      `"${value}" is not a time of day with an offset, like 09:00:00Z or 17:30:00+02:00`,
      location,
      'conversion',
    );
  }
  return ms;
}

/** Adds a condition, enforcing the per-search limit. */
export function pushCondition(list: FilterCondition[], condition: FilterCondition, location: string): void {
  if (list.length >= MAX_CONDITIONS) {
    throw new FilterError(
      `a search may hold at most ${MAX_CONDITIONS} filter values (reached at filter ${condition.filter})`,
      location,
    );
  }
  const size = (c: FilterCondition): number => JSON.stringify(c.value).length;
  if (list.reduce((sum, c) => sum + size(c), size(condition)) > MAX_TOTAL_VALUE_LENGTH) {
    throw new FilterError(
      `the filter values of a search may hold at most ${MAX_TOTAL_VALUE_LENGTH} characters`,
      location,
    );
  }
  const substring = (c: FilterCondition): number =>
    isSubstringOperator(c.operator) && typeof c.value === 'string' ? c.value.length : 0;
  if (
    substring(condition) > 0 &&
    list.reduce((sum, c) => sum + substring(c), substring(condition)) > MAX_SUBSTRING_TOTAL
  ) {
    throw new FilterError(
      `the Contains and DoesNotContain values of a search may hold at most ${MAX_SUBSTRING_TOTAL} characters ` +
        `together (reached at filter ${condition.filter})`,
      location,
    );
  }
  list.push(condition);
}

/** One canonical order, so two spellings of the same search compare equal (and a mark stays small). */
export function canonicalConditions(conditions: readonly FilterCondition[]): FilterCondition[] {
  const key = (c: FilterCondition): string => JSON.stringify([c.filter, c.operator, c.value]);
  const unique = new Map<string, FilterCondition>();
  for (const condition of conditions) unique.set(key(condition), condition);
  return [...unique.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, c]) => c);
}

export function sameConditions(a: readonly FilterCondition[], b: readonly FilterCondition[]): boolean {
  return JSON.stringify(canonicalConditions(a)) === JSON.stringify(canonicalConditions(b));
}

/** Conditions grouped per filter, in the shape the combination rule needs. */
export interface FilterGroup<C extends FilterCondition = FilterCondition> {
  filter: FilterName;
  anyOf: C[];
  noneOf: C[];
}

export function groupConditions(conditions: readonly FilterCondition[]): FilterGroup[] {
  const groups = new Map<FilterName, FilterGroup>();
  for (const condition of conditions) {
    let group = groups.get(condition.filter);
    if (!group) {
      group = { filter: condition.filter, anyOf: [], noneOf: [] };
      groups.set(condition.filter, group);
    }
    (isNegative(condition.operator) ? group.noneOf : group.anyOf).push(condition);
  }
  return [...groups.values()];
}
