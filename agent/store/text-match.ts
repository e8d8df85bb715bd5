/**
 * Text tests of audit searches that run as JavaScript functions on the reading connection
 * (audit-query.ts builds the SQL that calls them). Two reasons to leave SQLite's LIKE:
 *
 * - Folding. LIKE folds ASCII letters only, so a value with other letters ("Müller") needs the
 *   field lower-cased by JavaScript. Called once per condition, 63 conditions folded the same
 *   field 63 times per record; here one call folds the field once and runs all the conditions
 *   of a filter against it.
 * - Cost. LIKE '%v%' restarts at every position of the field, so it costs length(field) ×
 *   length(value). V8's `includes` is linear; and a substring test looks at the first
 *   SUBSTRING_WINDOW characters of a field only (docs/audit-api.md "Limits").
 *
 * Detail filters read the record's detail list (JSON) here too: one parse per record and
 * filter instead of one `json_each` per condition.
 */
import type Database from 'better-sqlite3';

/** Characters of a field that Contains and DoesNotContain look at. */
export const SUBSTRING_WINDOW = 4096;

export const MATCH_FUNCTION = 'vigil_match';
export const DETAILS_FUNCTION = 'vigil_details';
/** JavaScript's toLowerCase, for InGroup's lists of names. */
export const FOLD_FUNCTION = 'vigil_fold';

/** A positive test: the negative operators are NOT of one (audit-query.ts). */
export type TextTest = ['Contains' | 'StartsWith' | 'EndsWith' | 'Equals', string];

export interface DetailsSpec {
  fields: readonly string[];
  tests: readonly TextTest[];
}

const isAscii = (value: string): boolean => !/[\u0080-\uffff]/.test(value);
const asciiLower = (value: string): string => value.replace(/[A-Z]+/g, (c) => c.toLowerCase());

/** The first `n` code points of `value` (SQLite's substr counts code points too). */
export function leadingCharacters(value: string, n: number): string {
  if (value.length <= n) return value;
  let units = 0;
  for (let points = 0; points < n && units < value.length; points++) {
    const code = value.charCodeAt(units);
    units += code >= 0xd800 && code <= 0xdbff ? 2 : 1;
  }
  return value.slice(0, units);
}

interface PreparedTest {
  operator: TextTest[0];
  value: string;
  ascii: boolean;
}

/** A field, folded at most once per kind of folding, whatever the number of tests. */
class FoldedField {
  private ascii: string | undefined;
  private full: string | undefined;
  private windowAscii: string | undefined;
  private windowFull: string | undefined;

  constructor(private readonly text: string) {}

  get(ascii: boolean, windowed: boolean): string {
    if (windowed) {
      if (this.text.length <= SUBSTRING_WINDOW) return this.get(ascii, false);
      const window = leadingCharacters(this.text, SUBSTRING_WINDOW);
      return ascii ? (this.windowAscii ??= asciiLower(window)) : (this.windowFull ??= window.toLowerCase());
    }
    return ascii ? (this.ascii ??= asciiLower(this.text)) : (this.full ??= this.text.toLowerCase());
  }
}

function passes(field: FoldedField, test: PreparedTest): boolean {
  switch (test.operator) {
    case 'Contains':
      return field.get(test.ascii, true).includes(test.value);
    case 'StartsWith':
      return field.get(test.ascii, false).startsWith(test.value);
    case 'EndsWith':
      return field.get(test.ascii, false).endsWith(test.value);
    default:
      return field.get(test.ascii, false) === test.value;
  }
}

function prepare(tests: readonly TextTest[]): PreparedTest[] {
  return tests.map(([operator, value]) => {
    const ascii = isAscii(value);
    return { operator, value: ascii ? asciiLower(value) : value.toLowerCase(), ascii };
  });
}

/** A small cache of parsed arguments: the same search passes the same JSON for every record. */
class ParsedCache<T> {
  private readonly entries = new Map<string, T>();
  constructor(private readonly parse: (json: string) => T) {}
  get(json: string): T {
    let value = this.entries.get(json);
    if (value === undefined) {
      value = this.parse(json);
      if (this.entries.size >= 64) this.entries.delete(this.entries.keys().next().value!);
      this.entries.set(json, value);
    }
    return value;
  }
}

/** Registers the functions on a connection that runs compiled searches. */
export function registerTextFunctions(db: Database.Database): void {
  const tests = new ParsedCache((json) => prepare(JSON.parse(json) as TextTest[]));
  const details = new ParsedCache((json) => {
    const spec = JSON.parse(json) as DetailsSpec;
    return { fields: spec.fields, tests: prepare(spec.tests) };
  });
  db.function(FOLD_FUNCTION, { deterministic: true }, (value: unknown) =>
    typeof value === 'string' ? value.toLowerCase() : value,
  );
  db.function(MATCH_FUNCTION, { deterministic: true }, (text: unknown, json: unknown) => {
    const field = new FoldedField(typeof text === 'string' ? text : '');
    return tests.get(String(json)).some((test) => passes(field, test)) ? 1 : 0;
  });
  db.function(DETAILS_FUNCTION, { deterministic: true }, (list: unknown, json: unknown) => {
    if (typeof list !== 'string') return 0;
    const spec = details.get(String(json));
    let parsed: unknown;
    try {
      parsed = JSON.parse(list);
    } catch {
      return 0; // the store writes valid JSON; anything else has no detail to match
    }
    if (!Array.isArray(parsed)) return 0;
    for (const detail of parsed as Array<Record<string, unknown>>) {
      for (const name of spec.fields) {
        const value = detail?.[name];
        if (typeof value !== 'string') continue;
        const field = new FoldedField(value);
        if (spec.tests.some((test) => passes(field, test))) return 1;
      }
    }
    return 0;
  });
}
