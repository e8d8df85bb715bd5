/**
 * Turns audit search conditions into a parameterised SQL predicate over `activity_records AS a`
 * and, where the substring index can help, an FTS5 expression that finds candidates.
 * Values are always bound parameters, never spliced into SQL (docs/security.md); LIKE patterns
 * escape `%`, `_` and `\`.
 *
 * Case-insensitive matching: SQLite's LIKE folds ASCII letters only, which is exact when the
 * value is ASCII. Values with other characters ("Müller"), and every Detail, Before and After
 * condition, are tested by JavaScript functions registered on the reading connection
 * (text-match.ts): one call per filter and record, however many values the filter has.
 *
 * Cost per record is bounded (docs/audit-api.md "Limits"): a substring LIKE looks at the first
 * SUBSTRING_WINDOW characters of its field, EndsWith compares the field's last characters only,
 * and the value caps of audit-filters.ts bound the rest.
 */
import {
  groupConditions,
  type FilterCondition,
  type FilterGroup,
  type Operator,
  type TextCondition,
  type TextFilter,
} from '../../shared/audit-filters.js';
import { whenRange, workingHoursWindow, type TimeRange } from '../../shared/audit-when.js';
import { matchExpression, MIN_INDEXED_LENGTH, trigrams, type MatchTerms } from './search-text.js';
import {
  DETAILS_FUNCTION,
  FOLD_FUNCTION,
  MATCH_FUNCTION,
  SUBSTRING_WINDOW,
  type DetailsSpec,
  type TextTest,
} from './text-match.js';

export interface CompiledSearch {
  /** SQL boolean expression over `a` (activity_records); `1` when there is no condition. */
  where: string;
  params: Array<string | number>;
  /** FTS5 expression whose matches are a superset of the records `where` accepts, or null. */
  match: string | null;
  /** `match` as its trigrams (search-text.ts), or null with it. */
  matchTerms: MatchTerms | null;
  /**
   * Time ranges (UTC ms, [from, to)) one of which holds the When of every record `where`
   * accepts, or null when the search has no positive When: the reader finds through the when_ms
   * index which seqs they span (audit-reader.ts, `whenSpan`).
   */
  when: TimeRange[] | null;
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

  /** `expr` matches the ASCII `value` under a positive operator, NULL counting as the empty string. */
  like(expr: string, operator: Operator, value: string): string {
    const field = `coalesce(${expr}, '')`;
    if (operator === 'EndsWith') {
      // The field's last characters, compared for equality: linear in the value's length.
      return `substr(${field}, -${this.bind(Array.from(value).length)}) LIKE ${this.bind(escapeLike(value))} ESCAPE '\\'`;
    }
    const target = operator === 'Contains' ? `substr(${field}, 1, ${SUBSTRING_WINDOW})` : field;
    return `${target} LIKE ${this.bind(likePattern(operator, value))} ESCAPE '\\'`;
  }

  /** One call testing `expr` against every test (text-match.ts). */
  match(expr: string, tests: TextTest[]): string {
    return `${MATCH_FUNCTION}(${expr}, ${this.bind(JSON.stringify(tests))})`;
  }

  groupTest(condition: TextCondition): string {
    const { operator, value } = condition;
    const members = this.options.groupMembers?.(value) ?? [];
    const ascii = members.every(isAscii);
    const who = ascii ? 'lower(a.who)' : `${FOLD_FUNCTION}(a.who)`;
    const test = `${who} IN (SELECT value FROM json_each(${this.bind(JSON.stringify(members))}))`;
    return operator === 'InGroup' ? test : `NOT (${test})`;
  }

  /**
   * The positive tests of one text filter, ORed: ASCII values as LIKE each, the others in one
   * JavaScript call that folds the field once. Null when there is none.
   */
  anyText(filter: TextFilter, conditions: readonly TextCondition[]): string | null {
    if (conditions.length === 0) return null;
    const tests = conditions.map((c): TextTest => [positiveOf(c.operator) as TextTest[0], c.value]);
    if (filter === 'Detail' || filter === 'Before' || filter === 'After') {
      const spec: DetailsSpec = { fields: DETAIL_FIELDS[filter], tests };
      return `${DETAILS_FUNCTION}(a.details, ${this.bind(JSON.stringify(spec))})`;
    }
    const parts: string[] = [];
    const folded: TextTest[] = [];
    for (const [operator, value] of tests) {
      if (filter === 'RID' && operator === 'Equals') {
        parts.push(`a.rid = ${this.bind(value.toUpperCase())}`); // upper-case hex (rid.ts): the unique index
      } else if (isAscii(value)) {
        parts.push(this.like(COLUMNS[filter], operator, value));
      } else {
        folded.push([operator, value]);
      }
    }
    // Contains sees the field's first characters only: passing just those keeps a 1 MB field
    // from being copied into JavaScript for each record (docs/security.md F4).
    const windowed = folded.filter(([operator]) => operator === 'Contains');
    const whole = folded.filter(([operator]) => operator !== 'Contains');
    const field = `coalesce(${COLUMNS[filter]}, '')`;
    if (windowed.length > 0) parts.push(this.match(`substr(${field}, 1, ${SUBSTRING_WINDOW})`, windowed));
    if (whole.length > 0) parts.push(this.match(field, whole));
    return parts.length === 1 ? parts[0]! : `(${parts.join(' OR ')})`;
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
    if (condition.operator === 'InGroup' || condition.operator === 'NotInGroup') return this.groupTest(condition);
    const test = this.anyText(condition.filter, [condition])!;
    return positiveOf(condition.operator) === condition.operator ? test : `NOT (${test})`;
  }

  group(group: FilterGroup): string {
    const parts: string[] = [];
    const isPlainText = (c: FilterCondition): c is TextCondition =>
      c.filter !== 'When' && c.filter !== 'WorkingHours' && c.operator !== 'InGroup' && c.operator !== 'NotInGroup';
    const filter = group.filter as TextFilter;
    // Positive values: any may match. The text ones share one test of the field.
    const anyOf = group.anyOf.filter((c) => !isPlainText(c)).map((c) => this.condition(c));
    const anyText = this.anyText(filter, group.anyOf.filter(isPlainText));
    if (anyText !== null) anyOf.push(anyText);
    if (anyOf.length > 0) parts.push(`(${anyOf.join(' OR ')})`);
    // Negative values: none may match, that is NOT (any of their positive forms).
    for (const condition of group.noneOf.filter((c) => !isPlainText(c))) parts.push(this.condition(condition));
    const noneText = this.anyText(filter, group.noneOf.filter(isPlainText));
    if (noneText !== null) parts.push(`NOT (${noneText})`);
    return parts.join(' AND ');
  }
}

/**
 * The index can narrow a filter when every positive value is a long enough substring test: the
 * trigrams of each value, one alternative per value.
 */
function groupTerms(group: FilterGroup): string[][] | null {
  if (group.anyOf.length === 0) return null;
  const alternatives: string[][] = [];
  for (const condition of group.anyOf) {
    if (condition.filter === 'When' || condition.filter === 'WorkingHours' || condition.filter === 'RID') return null;
    if (condition.operator === 'InGroup') return null;
    if (Array.from(condition.value).length < MIN_INDEXED_LENGTH) return null;
    alternatives.push(trigrams(condition.value));
  }
  return alternatives;
}

/** The ranges of the positive When conditions (ORed within their group), or null when there is none. */
function whenRanges(groups: readonly FilterGroup[], reference: number): TimeRange[] | null {
  const when = groups.find((g) => g.filter === 'When');
  if (when === undefined || when.anyOf.length === 0) return null;
  return when.anyOf.flatMap((c) => (c.filter === 'When' ? [whenRange(c.value, reference)] : []));
}

export function compileSearch(conditions: readonly FilterCondition[], options: CompileOptions): CompiledSearch {
  const groups = groupConditions(conditions);
  const builder = new Builder(options);
  const where = groups.length === 0 ? '1' : groups.map((g) => `(${builder.group(g)})`).join(' AND ');
  const terms = groups.map(groupTerms).filter((t): t is string[][] => t !== null);
  return {
    where,
    params: builder.params,
    match: terms.length === 0 ? null : matchExpression(terms),
    matchTerms: terms.length === 0 ? null : terms,
    when: whenRanges(groups, options.reference),
  };
}
