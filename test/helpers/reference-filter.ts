/**
 * An independent, in-memory statement of the audit search semantics (docs/audit-api.md), used
 * as the oracle in differential tests of the SQL query builder and the substring index.
 */
import { groupConditions, type FilterCondition } from '../../shared/audit-filters.js';
import { parseDateTime, timeframeRange, workingHoursWindow, timeOfDay } from '../../shared/audit-when.js';
import type { ActivityRecord } from '../../shared/activity-record.js';

const isAscii = (s: string): boolean => !/[\u0080-\uffff]/.test(s);
const asciiLower = (s: string): string => s.replace(/[A-Z]/g, (c) => c.toLowerCase());

/** Characters of a field a substring test looks at (docs/audit-api.md "Limits"). */
const SUBSTRING_WINDOW = 4096;

function textMatches(haystack: string | undefined, operator: string, needle: string): boolean {
  const fold = isAscii(needle) ? asciiLower : (s: string) => s.toLowerCase();
  const h = fold(haystack ?? '');
  const n = fold(needle);
  switch (operator) {
    case 'Contains':
      return fold(
        Array.from(haystack ?? '')
          .slice(0, SUBSTRING_WINDOW)
          .join(''),
      ).includes(n);
    case 'StartsWith':
      return h.startsWith(n);
    case 'EndsWith':
      return h.endsWith(n);
    case 'Equals':
      return h === n;
    default:
      throw new Error(`not a positive operator: ${operator}`);
  }
}

const FIELD: Record<string, (r: ActivityRecord) => string | undefined> = {
  RID: (r) => r.RID,
  Who: (r) => r.Who,
  Where: (r) => r.Where,
  ObjectType: (r) => r.ObjectType,
  What: (r) => r.What,
  DataSource: (r) => r.DataSource,
  MonitoringPlan: (r) => r.MonitoringPlan?.Name,
  Item: (r) => r.Item?.Name,
  Workstation: (r) => r.Workstation,
  Action: (r) => r.Action,
};

function positive(
  record: ActivityRecord,
  c: FilterCondition,
  reference: number,
  groups: Map<string, string[]>,
): boolean {
  const when = Date.parse(record.When);
  if (c.filter === 'When') {
    const range =
      'timeframe' in c.value
        ? timeframeRange(c.value.timeframe, reference)
        : {
            from: c.value.from === null ? null : parseDateTime(c.value.from),
            to: c.value.to === null ? null : parseDateTime(c.value.to),
          };
    return (range.from === null || when >= range.from) && (range.to === null || when < range.to);
  }
  if (c.filter === 'WorkingHours') {
    const w = workingHoursWindow(c.value);
    const t = timeOfDay(when);
    return w.from < w.to ? t >= w.from && t < w.to : t >= w.from || t < w.to;
  }
  const op = c.operator === 'DoesNotContain' ? 'Contains' : c.operator === 'NotEqualTo' ? 'Equals' : c.operator;
  if (op === 'InGroup' || op === 'NotInGroup') {
    return (groups.get(c.value) ?? []).includes(record.Who.toLowerCase());
  }
  if (c.filter === 'Detail' || c.filter === 'Before' || c.filter === 'After') {
    const fields =
      c.filter === 'Detail' ? (['PropertyName', 'Before', 'After', 'Message'] as const) : ([c.filter] as const);
    return (record.DetailList ?? []).some((d) =>
      fields.some((f) => d[f] !== undefined && textMatches(d[f], op, c.value)),
    );
  }
  if (c.filter === 'RID' && op === 'Equals') return record.RID === c.value.toUpperCase();
  return textMatches(FIELD[c.filter]!(record), op, c.value);
}

export function referenceMatches(
  record: ActivityRecord,
  conditions: readonly FilterCondition[],
  reference: number,
  groups: Map<string, string[]> = new Map(),
): boolean {
  return groupConditions(conditions).every(
    (g) =>
      (g.anyOf.length === 0 || g.anyOf.some((c) => positive(record, c, reference, groups))) &&
      g.noneOf.every((c) => !positive(record, c, reference, groups)),
  );
}
