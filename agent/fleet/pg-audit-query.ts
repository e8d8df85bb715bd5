/**
 * Audit search conditions as a PostgreSQL predicate over `vigil_records AS a`, with the same
 * answers as the SQLite compiler (agent/store/audit-query.ts and text-match.ts; the conformance
 * tests run the audit API over both):
 *
 * - Values are bound parameters, never spliced into SQL (docs/security.md); LIKE patterns escape
 *   `%`, `_` and `\` (backslash is PostgreSQL's default LIKE escape).
 * - Case: a value of ASCII characters only matches with ASCII letters folded (SQLite's LIKE):
 *   ILIKE under the "C" collation, which folds nothing else. A value with other characters is
 *   compared with the field lower-cased by Unicode's rules (JavaScript's toLowerCase): lower()
 *   under the ICU root collation when the server has ICU, else under the database's own.
 * - Contains looks at the first SUBSTRING_WINDOW characters of a field, EndsWith at its last
 *   characters, Detail filters at the PropertyName, Before, After and Message strings of each
 *   detail; a NULL field counts as the empty string.
 *
 * Substring filters on Who, What, Where and the details also get a looser test on the whole
 * column (ILIKE under the database's collation), which the pg_trgm GIN indexes of
 * pg-audit-indexes.ts can answer: a superset of the exact test, so it narrows the rows without
 * changing the answer.
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
import { SUBSTRING_WINDOW } from '../store/text-match.js';
import { utcDay } from './pg-schema.js';

export interface PgSearch {
  /** Boolean expression over `a`; `true` when there is no condition. Parameters $1..$n. */
  where: string;
  params: unknown[];
}

export interface PgCompileOptions {
  reference: number;
  groupMembers?: (group: string) => readonly string[];
  /** A collation whose lower() follows Unicode's full case mapping ("und-x-icu"), or null. */
  unicodeCollation: string | null;
}

type PositiveOperator = 'Contains' | 'StartsWith' | 'EndsWith' | 'Equals';
type TextTest = [PositiveOperator, string];

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

/**
 * The account and the action with ASCII letters folded: the leading columns of the
 * vigil_records_who_folded_seq and vigil_records_who_action_folded_seq indexes (pg-audit-indexes.ts).
 */
const WHO_FOLDED = 'lower(a.who COLLATE "C")';
const FOLDED: Partial<Record<TextFilter, string>> = { Who: WHO_FOLDED, Action: 'lower(a.action COLLATE "C")' };

/** Columns with a pg_trgm index (pg-audit-indexes.ts). */
const TRIGRAM_COLUMNS: Partial<Record<TextFilter, string>> = {
  Who: 'a.who',
  What: 'a.what',
  Where: 'a.location',
  Detail: 'a.details',
  Before: 'a.details',
  After: 'a.details',
};

const DETAIL_FIELDS: Record<'Detail' | 'Before' | 'After', readonly string[]> = {
  Detail: ['PropertyName', 'Before', 'After', 'Message'],
  Before: ['Before'],
  After: ['After'],
};

const isAscii = (value: string): boolean => !/[\u0080-\uffff]/.test(value);
/** Whether JSON.stringify writes `value` other than as it is (a quote, a backslash, a control character). */
const escapedInJson = (value: string): boolean => JSON.stringify(value) !== `"${value}"`;
const escapeLike = (value: string): string => value.replace(/[\\%_]/g, (c) => `\\${c}`);
const codePoints = (value: string): number => Array.from(value).length;
/**
 * The UTC day of `ms` as vigil_records.day holds it, or null for a time whose year is not
 * written with four digits (a range end far from any record: no bound is needed there).
 */
function partitionDay(ms: number): string | null {
  const day = utcDay(ms);
  return /^\d{4}-\d{2}-\d{2}$/.test(day) ? day : null;
}

/** Shorter values give pg_trgm no trigram to look up: the loose test would scan the whole index. */
const MIN_TRIGRAM_VALUE = 3;

function likePattern(operator: PositiveOperator, value: string): string {
  const v = escapeLike(value);
  switch (operator) {
    case 'Contains':
      return `%${v}%`;
    case 'StartsWith':
      return `${v}%`;
    case 'EndsWith':
      return `%${v}`;
    default:
      return v;
  }
}

function positiveOf(operator: Operator): Operator {
  return operator === 'DoesNotContain' ? 'Contains' : operator === 'NotEqualTo' ? 'Equals' : operator;
}

const isPlainText = (c: FilterCondition): c is TextCondition =>
  c.filter !== 'When' && c.filter !== 'WorkingHours' && c.operator !== 'InGroup' && c.operator !== 'NotInGroup';

/** The group's values lower-cased when it is only Equals tests of ASCII values; else null. */
function foldedValues(group: FilterGroup): string[] | null {
  if (group.anyOf.length === 0) return null;
  const values: string[] = [];
  for (const condition of group.anyOf) {
    if (!isPlainText(condition) || condition.operator !== 'Equals' || !isAscii(condition.value)) return null;
    values.push(condition.value.toLowerCase());
  }
  return values;
}

class Builder {
  readonly params: unknown[] = [];
  constructor(private readonly options: PgCompileOptions) {}

  bind(value: unknown): string {
    this.params.push(value);
    return `$${this.params.length}`;
  }

  /** `expr` lower-cased by Unicode's rules, compared bytewise afterwards. */
  private unicodeLower(expr: string): string {
    const collation = this.options.unicodeCollation;
    return `(lower(${expr}${collation ? ` COLLATE "${collation}"` : ''}) COLLATE "C")`;
  }

  /** One positive test of a field (never NULL) against an ASCII value: ASCII letters folded. */
  private asciiTest(field: string, operator: PositiveOperator, value: string): string {
    if (operator === 'EndsWith') {
      return `right(${field}, ${this.bind(codePoints(value))}) COLLATE "C" ILIKE ${this.bind(escapeLike(value))}`;
    }
    const target = operator === 'Contains' ? `substr(${field}, 1, ${SUBSTRING_WINDOW})` : field;
    return `${target} COLLATE "C" ILIKE ${this.bind(likePattern(operator, value))}`;
  }

  /** One positive test against a value with other characters: both sides lower-cased fully. */
  private unicodeTest(field: string, operator: PositiveOperator, value: string): string {
    const folded = value.toLowerCase();
    switch (operator) {
      case 'Contains':
        // The window is cut before folding, as text-match.ts does.
        return `strpos(${this.unicodeLower(`substr(${field}, 1, ${SUBSTRING_WINDOW})`)}, ${this.bind(folded)}) > 0`;
      case 'StartsWith':
        return `starts_with(${this.unicodeLower(field)}, ${this.bind(folded)})`;
      case 'EndsWith':
        return `right(${this.unicodeLower(field)}, ${this.bind(codePoints(folded))}) = ${this.bind(folded)}`;
      default:
        return `${this.unicodeLower(field)} = ${this.bind(folded)}`;
    }
  }

  private test(field: string, [operator, value]: TextTest): string {
    return isAscii(value) ? this.asciiTest(field, operator, value) : this.unicodeTest(field, operator, value);
  }

  /** Whether any detail of the record has one of `fields` as a string that passes a test. */
  private detailsTest(fields: readonly string[], tests: readonly TextTest[]): string {
    const perField = fields.map((name) => {
      const value = `(d.value ->> '${name}')`;
      const passes = tests.map((t) => this.test(value, t)).join(' OR ');
      return `(json_typeof(d.value -> '${name}') = 'string' AND (${passes}))`;
    });
    // The store writes each DetailList as a JSON array (agent/store/audit-store.ts).
    return `EXISTS (SELECT 1 FROM json_array_elements(CASE WHEN left(a.details, 1) = '[' THEN a.details::json END) AS d
                     WHERE ${perField.join(' OR ')})`;
  }

  groupTest(condition: TextCondition): string {
    const members = this.options.groupMembers?.(condition.value) ?? [];
    // The ASCII form is the expression of the account's folded index (pg-audit-indexes.ts).
    const who = members.every(isAscii) ? WHO_FOLDED : this.unicodeLower('a.who');
    const test = `${who} = ANY(${this.bind([...members])}::text[])`;
    return condition.operator === 'InGroup' ? test : `NOT (${test})`;
  }

  /** The positive tests of one text filter, ORed; null when there is none. */
  anyText(filter: TextFilter, conditions: readonly TextCondition[]): string | null {
    if (conditions.length === 0) return null;
    const tests = conditions.map((c): TextTest => [positiveOf(c.operator) as PositiveOperator, c.value]);
    if (filter === 'Detail' || filter === 'Before' || filter === 'After') {
      return this.detailsTest(DETAIL_FIELDS[filter], tests);
    }
    const field = `coalesce(${COLUMNS[filter]}, '')`;
    const parts = tests.map(([operator, value]) =>
      filter === 'RID' && operator === 'Equals'
        ? `a.rid = ${this.bind(value.toUpperCase())}` // upper-case hex (agent/store/rid.ts)
        : this.test(field, [operator, value]),
    );
    return parts.length === 1 ? parts[0]! : `(${parts.join(' OR ')})`;
  }

  condition(condition: FilterCondition): string {
    if (condition.filter === 'When') {
      const range = whenRange(condition.value, this.options.reference);
      const parts: string[] = [];
      if (range.from !== null) parts.push(`a.when_ms >= ${this.bind(range.from)}`);
      if (range.to !== null) parts.push(`a.when_ms < ${this.bind(range.to)}`);
      if (condition.operator !== 'Equals') return `NOT (${parts.join(' AND ')})`;
      // The same range in days: `day` is the partition key, so only the range's days are read.
      const firstDay = range.from === null ? null : partitionDay(range.from);
      const lastDay = range.to === null ? null : partitionDay(range.to - 1);
      if (firstDay !== null) parts.push(`a.day >= ${this.bind(firstDay)}::date`);
      if (lastDay !== null) parts.push(`a.day <= ${this.bind(lastDay)}::date`);
      return `(${parts.join(' AND ')})`;
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

  /**
   * Who Equals with ASCII values only, and Action Equals beside it: the exact test (ASCII
   * letters folded), written as the expression of a column of the
   * vigil_records_who_action_folded index so that a btree answers it. Action alone is not
   * written so: it is the index's second column, and PostgreSQL then read the whole index (10 s
   * for one action over 10,000,000 records, against 23 ms walking `seq` with the exact test).
   */
  private foldedTest(group: FilterGroup, accountFolded: boolean): string | null {
    const folded = FOLDED[group.filter as TextFilter];
    if (folded === undefined || (group.filter === 'Action' && !accountFolded)) return null;
    const values = foldedValues(group);
    if (values === null) return null;
    return values.length === 1
      ? `${folded} = ${this.bind(values[0])}`
      : `${folded} = ANY(${this.bind(values)}::text[])`;
  }

  /**
   * The loose test an index can answer: every positive value of the group is an ASCII text test
   * long enough for trigrams, on a column with a trigram index. Null otherwise.
   */
  private trigramTest(group: FilterGroup): string | null {
    const column = TRIGRAM_COLUMNS[group.filter as TextFilter];
    if (column === undefined || group.anyOf.length === 0) return null;
    const inDetails = column === 'a.details';
    const patterns: string[] = [];
    for (const condition of group.anyOf) {
      if (!isPlainText(condition) || !isAscii(condition.value)) return null;
      if (codePoints(condition.value) < MIN_TRIGRAM_VALUE) return null;
      // In the details' JSON text a quote, a backslash or a control character is escaped.
      if (inDetails && escapedInJson(condition.value)) return null;
      const operator = positiveOf(condition.operator) as PositiveOperator;
      patterns.push(likePattern(inDetails ? 'Contains' : operator, condition.value));
    }
    return `(${patterns.map((p) => `${column} ILIKE ${this.bind(p)}`).join(' OR ')})`;
  }

  group(group: FilterGroup, accountFolded: boolean): string {
    const parts: string[] = [];
    const filter = group.filter as TextFilter;
    // The folded test is the group's positive test itself, not a looser one beside it: `who`
    // and `action` are NOT NULL, and ILIKE under "C" compares the lower() under "C" of both
    // sides. Written once, PostgreSQL estimates its rows from the index's statistics; ANDed
    // with the ILIKE, it guessed one row a partition, sorted all of an account's records for a
    // page instead of merging the partitions' index order, and read them all.
    const folded = this.foldedTest(group, accountFolded);
    const anyOf = group.anyOf.filter((c) => !isPlainText(c)).map((c) => this.condition(c));
    const anyText = folded ?? this.anyText(filter, group.anyOf.filter(isPlainText));
    if (anyText !== null) anyOf.push(anyText);
    if (anyOf.length > 0) parts.push(`(${anyOf.join(' OR ')})`);
    for (const condition of group.noneOf.filter((c) => !isPlainText(c))) parts.push(this.condition(condition));
    const noneText = this.anyText(filter, group.noneOf.filter(isPlainText));
    if (noneText !== null) parts.push(`NOT (${noneText})`);
    const loose = folded === null ? this.trigramTest(group) : null;
    if (loose !== null) parts.unshift(loose);
    return parts.join(' AND ');
  }
}

export function compilePgSearch(conditions: readonly FilterCondition[], options: PgCompileOptions): PgSearch {
  const groups = groupConditions(conditions);
  const builder = new Builder(options);
  const accountFolded = groups.some((g) => g.filter === 'Who' && foldedValues(g) !== null);
  const where = groups.length === 0 ? 'true' : groups.map((g) => `(${builder.group(g, accountFolded)})`).join(' AND ');
  return { where, params: builder.params };
}
