/**
 * Turns audit search conditions into a parameterised SQL predicate over `activity_records AS a`
 * and, where the substring index can help, an FTS5 expression that finds candidates.
 * Values are always bound parameters, never spliced into SQL (security.md §3.4); LIKE patterns
 * escape `%`, `_` and `\`.
 *
 * Case-insensitive matching: SQLite's LIKE folds ASCII letters only, which is exact when the
 * value is ASCII. A value with other characters is compared through `vigil_fold` (JavaScript's
 * toLowerCase, registered on the reading connection), slower but right for "Müller".
 */
import {
  groupConditions,
  type FilterCondition,
  type FilterGroup,
  type Operator,
  type TextCondition,
  type TextFilter,
} from '../../shared/audit-filters.js';
import { whenRange, workingHoursWindow } from '../../shared/audit-when.js';
import { containsExpression } from './search-text.js';

export const FOLD_FUNCTION = 'vigil_fold';

export interface CompiledSearch {
  /** SQL boolean expression over `a` (activity_records); `1` when there is no condition. */
  where: string;
  params: Array<string | number>;
  /** FTS5 expression whose matches are a superset of the records `where` accepts, or null. */
  match: string | null;
}

export interface CompileOptions {
  /** Time the search was first run: named timeframes resolve against it (audit-when.ts). */
  reference: number;
  /** The lower-cased Who values that belong to a local group (resolved before compiling). */
  groupMembers?: (group: string) => readonly string[];
}

const COLUMNS: Record<Exclude<TextFilter, 'Detail' | 'Before' | 'After'>, string> = {
  RID: 'a.rid',
  Who: 'a.who',
  Where: 'a.location',
  ObjectType: 'a.object_type',
  What: 'a.what',
  DataSource: 'a.data_source',
  MonitoringPlan: 'a.plan_name',
  Item: 'a.item_name',
  Workstation: 'a.workstation',
  Action: 'a.action',
};

const DETAIL_FIELDS: Record<'Detail' | 'Before' | 'After', readonly string[]> = {
  Detail: ['PropertyName', 'Before', 'After', 'Message'],
  Before: ['Before'],
  After: ['After'],
};

const isAscii = (value: string): boolean => !/[\u0080-\uffff]/.test(value);
const escapeLike = (value: string): string => value.replace(/[\\%_]/g, (c) => `\\${c}`);

function likePattern(operator: Operator, value: string): string {
  const v = escapeLike(value);
  switch (operator) {
    case 'Contains':
    case 'DoesNotContain':
      return `%${v}%`;
    case 'StartsWith':
      return `${v}%`;
    case 'EndsWith':
      return `%${v}`;
    default:
      return v; // Equals, NotEqualTo: LIKE without wildcards is a case-insensitive equality
  }
}

/** The positive form of a text operator (the negative ones are NOT of it). */
function positiveOf(operator: Operator): Operator {
  return operator === 'DoesNotContain' ? 'Contains' : operator === 'NotEqualTo' ? 'Equals' : operator;
}

class Builder {
  readonly params: Array<string | number> = [];
  constructor(private readonly options: CompileOptions) {}

  bind(value: string | number): string {
    this.params.push(value);
    return '?';
  }

  /** `expr` matches `value` under a positive operator, NULL counting as the empty string. */
  like(expr: string, operator: Operator, value: string): string {
    const ascii = isAscii(value);
    const target = ascii ? `coalesce(${expr}, '')` : `${FOLD_FUNCTION}(coalesce(${expr}, ''))`;
    const pattern = likePattern(operator, ascii ? value : value.toLowerCase());
    return `${target} LIKE ${this.bind(pattern)} ESCAPE '\\'`;
  }

  text(condition: TextCondition): string {
    const { filter, operator, value } = condition;
    if (operator === 'InGroup' || operator === 'NotInGroup') {
      const members = this.options.groupMembers?.(value) ?? [];
      const ascii = members.every(isAscii);
      const who = ascii ? 'lower(a.who)' : `${FOLD_FUNCTION}(a.who)`;
      const test = `${who} IN (SELECT value FROM json_each(${this.bind(JSON.stringify(members))}))`;
      return operator === 'InGroup' ? test : `NOT (${test})`;
    }
    const positive = positiveOf(operator);
    const negate = positive !== operator;
    let test: string;
    if (filter === 'Detail' || filter === 'Before' || filter === 'After') {
      const fields = DETAIL_FIELDS[filter].map((field) => this.like(`d.value ->> '${field}'`, positive, value));
      test = `EXISTS (SELECT 1 FROM json_each(a.details) AS d WHERE ${fields.join(' OR ')})`;
    } else if (filter === 'RID' && positive === 'Equals') {
      // RIDs are upper-case hex (rid.ts): equality on the unique index.
      test = `a.rid = ${this.bind(value.toUpperCase())}`;
    } else {
      test = this.like(COLUMNS[filter], positive, value);
    }
    return negate ? `NOT (${test})` : test;
  }

  condition(condition: FilterCondition): string {
    if (condition.filter === 'When') {
      const range = whenRange(condition.value, this.options.reference);
      const parts: string[] = [];
      if (range.from !== null) parts.push(`a.when_ms >= ${this.bind(range.from)}`);
      if (range.to !== null) parts.push(`a.when_ms < ${this.bind(range.to)}`);
      const test = `(${parts.join(' AND ')})`;
      return condition.operator === 'Equals' ? test : `NOT ${test}`;
    }
    if (condition.filter === 'WorkingHours') {
      const window = workingHoursWindow(condition.value);
      const tod = '(((a.when_ms % 86400000) + 86400000) % 86400000)';
      const joiner = window.from < window.to ? 'AND' : 'OR'; // from > to: the window wraps midnight
      const test = `(${tod} >= ${this.bind(window.from)} ${joiner} ${tod} < ${this.bind(window.to)})`;
      return condition.operator === 'Equals' ? test : `NOT ${test}`;
    }
    return this.text(condition);
  }

  group(group: FilterGroup): string {
    const parts: string[] = [];
    if (group.anyOf.length > 0) parts.push(`(${group.anyOf.map((c) => this.condition(c)).join(' OR ')})`);
    for (const condition of group.noneOf) parts.push(this.condition(condition));
    return parts.join(' AND ');
  }
}

/** The index can narrow a filter when every positive value is a long enough substring test. */
function groupMatch(group: FilterGroup): string | null {
  if (group.anyOf.length === 0) return null;
  const alternatives: string[] = [];
  for (const condition of group.anyOf) {
    if (condition.filter === 'When' || condition.filter === 'WorkingHours' || condition.filter === 'RID') return null;
    if (condition.operator === 'InGroup') return null;
    const expression = containsExpression(condition.value);
    if (expression === null) return null;
    alternatives.push(`(${expression})`);
  }
  return alternatives.length === 1 ? alternatives[0]! : `(${alternatives.join(' OR ')})`;
}

export function compileSearch(conditions: readonly FilterCondition[], options: CompileOptions): CompiledSearch {
  const groups = groupConditions(conditions);
  const builder = new Builder(options);
  const where = groups.length === 0 ? '1' : groups.map((g) => `(${builder.group(g)})`).join(' AND ');
  const matches = groups.map(groupMatch).filter((m): m is string => m !== null);
  return { where, params: builder.params, match: matches.length === 0 ? null : matches.join(' AND ') };
}
