/** The pure filter model (shared/): JSON FilterList parsing, validation errors, time handling. */
import { describe, expect, it } from 'vitest';
import { parseFilterListJson, filterListToJson } from '../../shared/audit-filter-json.js';
import {
  FilterError,
  MAX_CONDITIONS,
  MAX_SUBSTRING_LENGTH,
  MAX_SUBSTRING_TOTAL,
  canonicalConditions,
  sameConditions,
  groupConditions,
  textCondition,
} from '../../shared/audit-filters.js';
import { parseDateTime, parseTimeOfDay, timeframeRange, timeOfDay } from '../../shared/audit-when.js';

describe('parseFilterListJson', () => {
  it('reads the three value forms with the default operators', () => {
    const conditions = parseFilterListJson({
      Who: 'alice',
      Action: ['Added', { NotEqualTo: 'Removed' }],
      Where: { StartsWith: 'dc', EndsWith: ['.local', '.lan'] },
    });
    expect(conditions).toEqual([
      { filter: 'Who', operator: 'Contains', value: 'alice' },
      { filter: 'Action', operator: 'Equals', value: 'Added' },
      { filter: 'Action', operator: 'NotEqualTo', value: 'Removed' },
      { filter: 'Where', operator: 'StartsWith', value: 'dc' },
      { filter: 'Where', operator: 'EndsWith', value: '.local' },
      { filter: 'Where', operator: 'EndsWith', value: '.lan' },
    ]);
  });

  it('round-trips through filterListToJson', () => {
    const conditions = parseFilterListJson({
      Who: [{ InGroup: 'staff' }, 'bob'],
      When: [{ LastSevenDays: '' }, { NotEqualTo: { From: '2026-01-01T00:00:00Z', To: '2026-02-01T00:00:00+01:00' } }],
      WorkingHours: { NotEqualTo: { From: '09:00:00Z', To: '17:00:00Z' } },
    });
    expect(parseFilterListJson(filterListToJson(conditions))).toEqual(conditions);
  });

  it.each([
    [{ Foo: 'x' }, /unknown filter "Foo"/, '/ActivityRecordSearch/FilterList/Foo'],
    [{ Who: { Like: 'x' } }, /unknown operator "Like"/, '/ActivityRecordSearch/FilterList/Who'],
    [
      { When: { Contains: 'x' } },
      /operator Contains does not apply to filter When/,
      '/ActivityRecordSearch/FilterList/When',
    ],
    [{ Who: ['a', 7] }, /must be a string/, '/ActivityRecordSearch/FilterList/Who[2]'],
    [{ Who: [] }, /needs a value/, '/ActivityRecordSearch/FilterList/Who'],
    [
      { When: { From: '2026-02-01T00:00:00Z', To: '2026-01-01T00:00:00Z' } },
      /earlier/,
      '/ActivityRecordSearch/FilterList/When',
    ],
    [{ When: { LastSevenDays: 'yes' } }, /empty value/, '/ActivityRecordSearch/FilterList/When/LastSevenDays'],
    [{ WorkingHours: { From: '09:00:00Z' } }, /both From and To/, '/ActivityRecordSearch/FilterList/WorkingHours'],
    [{}, /holds no filter/, '/ActivityRecordSearch/FilterList'],
    [[], /must be an object/, '/ActivityRecordSearch/FilterList'],
  ])('%j is refused, naming the part', (input, message, location) => {
    try {
      parseFilterListJson(input);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(FilterError);
      expect((error as FilterError).message).toMatch(message);
      expect((error as FilterError).location).toBe(location);
    }
  });

  it('bounds the number and total size of values', () => {
    expect(() => parseFilterListJson({ Who: Array.from({ length: MAX_CONDITIONS + 1 }, (_, i) => `v${i}`) })).toThrow(
      /at most 64/,
    );
    expect(() =>
      parseFilterListJson({ What: Array.from({ length: 5 }, (_, i) => ({ StartsWith: `${i}`.repeat(4000) })) }),
    ).toThrow(/16384 characters/);
  });

  it('bounds substring values, alone and together, naming the filter', () => {
    // Each costs its length times the field text it is compared with (docs/audit-api.md "Limits").
    expect(() => parseFilterListJson({ What: 'x'.repeat(MAX_SUBSTRING_LENGTH + 1) })).toThrow(
      /the Contains value of filter What is longer than 256 characters/,
    );
    expect(() => parseFilterListJson({ Item: { DoesNotContain: 'ü'.repeat(MAX_SUBSTRING_LENGTH + 1) } })).toThrow(
      /the DoesNotContain value of filter Item/,
    );
    const quarter = (i: number): string => `${i}`.repeat(MAX_SUBSTRING_TOTAL / 4);
    expect(parseFilterListJson({ What: [0, 1, 2, 3].map(quarter) })).toHaveLength(4);
    expect(() => parseFilterListJson({ What: [0, 1, 2].map(quarter), Detail: [quarter(3), 'x'] })).toThrow(
      /at most 1024 characters together \(reached at filter Detail\)/,
    );
    // Anchored tests cost the value's length only: they keep the longer limit.
    expect(parseFilterListJson({ What: { StartsWith: 'x'.repeat(4000) } })).toHaveLength(1);
  });
});

describe('condition sets', () => {
  it('compare equal whatever the order and duplicates', () => {
    const a = [textCondition('Who', 'Contains', 'a', ''), textCondition('Action', 'Equals', 'Added', '')];
    const b = [a[1]!, a[0]!, a[0]!];
    expect(sameConditions(a, b)).toBe(true);
    expect(canonicalConditions(b)).toHaveLength(2);
    expect(sameConditions(a, [a[0]!])).toBe(false);
  });

  it('group positives and negatives per filter', () => {
    const groups = groupConditions([
      textCondition('Who', 'Contains', 'a', ''),
      textCondition('Who', 'NotEqualTo', 'b', ''),
      textCondition('Who', 'InGroup', 'g', ''),
      textCondition('Where', 'DoesNotContain', 'c', ''),
    ]);
    expect(groups.map((g) => [g.filter, g.anyOf.length, g.noneOf.length])).toEqual([
      ['Who', 2, 1],
      ['Where', 0, 1],
    ]);
  });
});

describe('time', () => {
  it('parses date-times with Z and offsets, refuses the rest', () => {
    expect(parseDateTime('2017-02-19T03:43:49-11:00')).toBe(Date.parse('2017-02-19T14:43:49Z'));
    expect(parseDateTime('2016-09-16T16:30:00+11:00')).toBe(Date.parse('2016-09-16T05:30:00Z'));
    expect(parseDateTime('2026-11-20T10:15:30.250Z')).toBe(Date.parse('2026-11-20T10:15:30.250Z'));
    for (const bad of [
      '2026-11-20T10:15:30',
      '2026-02-30T00:00:00Z',
      '2026-11-20 10:15:30Z',
      'yesterday',
      '2026-11-20T24:00:00Z',
      '2026-11-20T10:00:00+15:00',
    ]) {
      expect(parseDateTime(bad), bad).toBeNull();
    }
  });

  it('parses times of day into UTC milliseconds', () => {
    expect(parseTimeOfDay('09:00:00+00:00')).toBe(9 * 3600_000);
    expect(parseTimeOfDay('09:00:00+02:00')).toBe(7 * 3600_000);
    expect(parseTimeOfDay('01:00:00+02:00')).toBe(23 * 3600_000);
    expect(parseTimeOfDay('23:00:00-05:00')).toBe(4 * 3600_000);
    expect(parseTimeOfDay('9:00')).toBeNull();
    expect(timeOfDay(-1)).toBe(86_399_999);
  });

  it('timeframes are calendar days in local time', () => {
    const reference = new Date(2026, 10, 20, 15, 30).getTime();
    expect(timeframeRange('Today', reference)).toEqual({
      from: new Date(2026, 10, 20).getTime(),
      to: new Date(2026, 10, 21).getTime(),
    });
    expect(timeframeRange('Yesterday', reference)).toEqual({
      from: new Date(2026, 10, 19).getTime(),
      to: new Date(2026, 10, 20).getTime(),
    });
    expect(timeframeRange('LastSevenDays', reference).from).toBe(new Date(2026, 10, 14).getTime());
    expect(timeframeRange('LastThirtyDays', reference).from).toBe(new Date(2026, 9, 22).getTime());
  });
});
