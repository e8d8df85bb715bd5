/**
 * The JSON form of a FilterList (docs/audit-api.md "How operators are written"): a filter's value
 * is a string (default operator), an object keyed by operator, or an array of both. When takes
 * `{"LastSevenDays": ""}` or `{"From": …, "To": …}`, WorkingHours `{"From": …, "To": …}`, each
 * optionally wrapped in `{"NotEqualTo": …}`. Keys match case-insensitively, as the replaced
 * product's own client sends `filterlist` (docs/audit-api.md).
 */
import {
  checkOperator,
  FilterError,
  lookupFilter,
  lookupOperator,
  lookupTimeframe,
  pushCondition,
  textCondition,
  whenCondition,
  workingHoursCondition,
  type FilterCondition,
  type TextFilter,
  type WhenValue,
} from './audit-filters.js';

type JsonObject = Record<string, unknown>;

export const isJsonObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const describe = (value: unknown): string =>
  value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value === 'object' ? 'an object' : typeof value;

/** Reads a FilterList object into conditions; throws FilterError naming the offending part. */
export function parseFilterListJson(input: unknown, location = '/ActivityRecordSearch/FilterList'): FilterCondition[] {
  if (!isJsonObject(input)) throw new FilterError(`FilterList must be an object, not ${describe(input)}`, location);
  const out: FilterCondition[] = [];
  for (const [key, value] of Object.entries(input)) {
    const filter = lookupFilter(key);
    const at = `${location}/${key}`;
    if (filter === null) throw new FilterError(`unknown filter "${key}"`, at);
    if (filter === 'When') readWhen(value, at, out);
    else if (filter === 'WorkingHours') readWorkingHours(value, at, out);
    else readText(filter, value, at, out);
  }
  if (out.length === 0) throw new FilterError('FilterList holds no filter', location);
  return out;
}

function readText(filter: TextFilter, value: unknown, at: string, out: FilterCondition[]): void {
  const items = Array.isArray(value) ? value : [value];
  if (items.length === 0) throw new FilterError(`filter ${filter} needs a value`, at);
  items.forEach((item, index) => {
    const itemAt = Array.isArray(value) ? `${at}[${index + 1}]` : at;
    if (typeof item === 'string') {
      pushCondition(out, textCondition(filter, undefined, item, itemAt), itemAt);
    } else if (isJsonObject(item)) {
      const entries = Object.entries(item);
      if (entries.length === 0) throw new FilterError(`filter ${filter}: empty operator object`, itemAt);
      for (const [operator, operand] of entries) {
        const operands = Array.isArray(operand) ? operand : [operand];
        if (operands.length === 0) throw new FilterError(`filter ${filter} needs a value`, `${itemAt}/${operator}`);
        for (const one of operands) {
          if (typeof one !== 'string') {
            throw new FilterError(
              `filter ${filter}: the value of ${operator} must be a string, not ${describe(one)}`,
              `${itemAt}/${operator}`,
            );
          }
          pushCondition(out, textCondition(filter, operator, one, itemAt), itemAt);
        }
      }
    } else {
      throw new FilterError(
        `filter ${filter}: a value must be a string, an {"Operator": "value"} object or an array of them, not ${describe(item)}`,
        itemAt,
      );
    }
  });
}

/** Splits `{"NotEqualTo": x}` into its operator and operand; returns null when not a wrapper. */
function operatorWrapper(item: JsonObject): Array<[string, unknown]> | null {
  const entries = Object.entries(item);
  if (entries.length === 0) return null;
  const operators = entries.filter(([key]) => lookupOperator(key, true) !== null);
  if (operators.length === 0) return null;
  return entries;
}

function readWhen(value: unknown, at: string, out: FilterCondition[]): void {
  const items = Array.isArray(value) ? value : [value];
  if (items.length === 0) throw new FilterError('filter When needs a value', at);
  items.forEach((item, index) => {
    const itemAt = Array.isArray(value) ? `${at}[${index + 1}]` : at;
    const wrapped = isJsonObject(item) ? operatorWrapper(item) : null;
    if (wrapped) {
      for (const [operator, operand] of wrapped) {
        checkOperator('When', operator, itemAt); // before the operand, so the error names the operator
        pushCondition(out, whenCondition(operator, whenValue(operand, itemAt), itemAt), itemAt);
      }
    } else {
      pushCondition(out, whenCondition(undefined, whenValue(item, itemAt), itemAt), itemAt);
    }
  });
}

function whenValue(item: unknown, at: string): WhenValue {
  if (typeof item === 'string') {
    const timeframe = lookupTimeframe(item, true);
    if (timeframe === null) throw new FilterError(`filter When: unknown timeframe "${item}"`, at);
    return { timeframe };
  }
  if (!isJsonObject(item)) {
    throw new FilterError(`filter When: expected a timeframe or a From/To object, not ${describe(item)}`, at);
  }
  let from: string | null = null;
  let to: string | null = null;
  let timeframe: WhenValue | null = null;
  for (const [key, operand] of Object.entries(item)) {
    const lower = key.toLowerCase();
    if (lower === 'from' || lower === 'to') {
      if (typeof operand !== 'string') {
        throw new FilterError(
          `filter When: ${key} must be a date-time string, not ${describe(operand)}`,
          `${at}/${key}`,
        );
      }
      if (lower === 'from') from = operand;
      else to = operand;
      continue;
    }
    const named = lookupTimeframe(key, true);
    if (named === null) throw new FilterError(`filter When: unknown timeframe or field "${key}"`, `${at}/${key}`);
    if (!(operand === '' || operand === null || operand === true)) {
      throw new FilterError(`filter When: the timeframe ${named} takes an empty value ("")`, `${at}/${key}`);
    }
    if (timeframe !== null) throw new FilterError('filter When: one timeframe per value', at);
    timeframe = { timeframe: named };
  }
  if (timeframe !== null) {
    if (from !== null || to !== null) throw new FilterError('filter When: a timeframe or From/To, not both', at);
    return timeframe;
  }
  return { from, to };
}

function readWorkingHours(value: unknown, at: string, out: FilterCondition[]): void {
  const items = Array.isArray(value) ? value : [value];
  if (items.length === 0) throw new FilterError('filter WorkingHours needs a value', at);
  items.forEach((item, index) => {
    const itemAt = Array.isArray(value) ? `${at}[${index + 1}]` : at;
    if (!isJsonObject(item)) {
      throw new FilterError(`filter WorkingHours: expected a From/To object, not ${describe(item)}`, itemAt);
    }
    const wrapped = operatorWrapper(item);
    const pairs: Array<[string | undefined, unknown]> = wrapped ?? [[undefined, item]];
    for (const [operator, operand] of pairs) {
      if (!isJsonObject(operand)) {
        throw new FilterError(`filter WorkingHours: expected a From/To object, not ${describe(operand)}`, itemAt);
      }
      let from: string | null = null;
      let to: string | null = null;
      for (const [key, time] of Object.entries(operand)) {
        const lower = key.toLowerCase();
        if (lower !== 'from' && lower !== 'to') {
          throw new FilterError(`filter WorkingHours: unknown field "${key}"`, `${itemAt}/${key}`);
        }
        if (typeof time !== 'string') {
          throw new FilterError(`filter WorkingHours: ${key} must be a time string`, `${itemAt}/${key}`);
        }
        if (lower === 'from') from = time;
        else to = time;
      }
      pushCondition(out, workingHoursCondition(operator, from, to, itemAt), itemAt);
    }
  });
}

/** The JSON FilterList for conditions, every value in the explicit `{"Operator": value}` form. */
export function filterListToJson(conditions: readonly FilterCondition[]): Record<string, unknown[]> {
  const out: Record<string, unknown[]> = {};
  for (const condition of conditions) {
    const list = (out[condition.filter] ??= []);
    if (condition.filter === 'When') {
      const v = condition.value;
      const body =
        'timeframe' in v
          ? { [v.timeframe]: '' }
          : { ...(v.from !== null ? { From: v.from } : {}), ...(v.to !== null ? { To: v.to } : {}) };
      list.push({ [condition.operator]: body });
    } else if (condition.filter === 'WorkingHours') {
      list.push({ [condition.operator]: { From: condition.value.from, To: condition.value.to } });
    } else {
      list.push({ [condition.operator]: condition.value });
    }
  }
  return out;
}
