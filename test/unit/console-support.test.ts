/**
 * Small pieces of the console: today's count across midnight, visible control characters, and
 * the activity search form turned into the audit FilterList. (HTTP Range parsing for downloads
 * is test/unit/byte-range.test.ts, shared with the agent API.)
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { NewActivityRecord } from '../../shared/activity-record.js';
import { AuditStore } from '../../agent/store/audit-store.js';
import { TodayCount } from '../../agent/store/today-count.js';
import { parseFilterListJson } from '../../shared/audit-filter-json.js';
import { FilterError } from '../../shared/audit-filters.js';
import { visibleText } from '../../renderer/src/safe-text.js';
import { buildFilterList, emptyForm } from '../../renderer/src/views/activity-filters.js';
import { makeTempDir } from '../helpers/temp-dir.js';

const at = (when: Date, what: string): NewActivityRecord => ({
  Who: 'HOST\\alice',
  Action: 'Added',
  What: what,
  When: when.toISOString(),
  Where: 'HOST',
  ObjectType: 'File',
  DataSource: 'File System',
});

describe('TodayCount', () => {
  it('counts the records of the local calendar day, follows new ones, and starts over at midnight', () => {
    const store = AuditStore.open({ file: path.join(makeTempDir(), 'audit.db') });
    try {
      const midnight = new Date(2026, 10, 22); // local midnight
      let now = midnight.getTime() + 10 * 3600_000;
      const count = new TodayCount(
        () => store.db,
        () => now,
      );
      store.insertBatch([
        at(new Date(midnight.getTime() - 60_000), 'yesterday'),
        at(new Date(midnight.getTime() + 60_000), 'today 1'),
      ]);
      expect(count.value()).toBe(1);
      // Records added later are counted when their time is today, whoever wrote them.
      store.insertBatch([
        at(new Date(midnight.getTime() + 3600_000), 'today 2'),
        at(new Date(midnight.getTime() - 86_400_000), 'last week, written late'),
        at(new Date(midnight.getTime() + 26 * 3600_000), 'tomorrow'),
      ]);
      expect(count.value()).toBe(2);
      expect(count.value()).toBe(2); // nothing new: the same
      now = midnight.getTime() + 25 * 3600_000; // the next day
      expect(count.value()).toBe(1); // 'tomorrow' is today now
      store.close();
      expect(count.value()).toBe(1); // a failing store keeps the last count
    } finally {
      store.close();
    }
  });
});

describe('visibleText', () => {
  it('shows direction overrides, zero-width and control characters, and leaves the rest alone', () => {
    expect(visibleText('invoice\u202Etxt.exe')).toBe('invoice⟨U+202E⟩txt.exe');
    expect(visibleText('a\u200Bb\u0007c\u0000')).toBe('a⟨U+200B⟩b⟨U+0007⟩c⟨U+0000⟩');
    expect(visibleText('<img src=x onerror=alert(1)>\tMüller 😀')).toBe('<img src=x onerror=alert(1)>\tMüller 😀');
  });
});

describe('activity search form', () => {
  it('becomes a FilterList the agent reads back into the same conditions', () => {
    const list = buildFilterList({
      ...emptyForm(),
      who: ' alice ',
      whoOperator: 'StartsWith',
      what: '/srv',
      action: 'Removed',
      source: 'File System',
      time: 'LastSevenDays',
    });
    expect(list).toEqual({
      Who: [{ StartsWith: 'alice' }],
      What: [{ Contains: '/srv' }],
      Action: [{ Equals: 'Removed' }],
      DataSource: [{ Equals: 'File System' }],
      When: [{ Equals: { LastSevenDays: '' } }],
    });
    expect(parseFilterListJson(list)).toHaveLength(5);
    expect(buildFilterList(emptyForm())).toEqual({});
  });

  it('turns a custom time range into UTC bounds and names the field of a mistake', () => {
    const list = buildFilterList({ ...emptyForm(), time: 'custom', from: '2026-11-20T08:00', to: '' });
    expect(list['When']).toEqual([{ Equals: { From: new Date('2026-11-20T08:00').toISOString() } }]);
    expect(() => buildFilterList({ ...emptyForm(), time: 'custom' })).toThrow(FilterError);
    try {
      buildFilterList({ ...emptyForm(), time: 'custom', from: '2026-11-20T08:00', to: '2026-11-19T08:00' });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(FilterError);
      expect((error as FilterError).location).toBe('When');
      expect((error as FilterError).message).toMatch(/earlier/);
    }
    expect(() => buildFilterList({ ...emptyForm(), who: 'x'.repeat(300) })).toThrow(/longer than 255/);
  });
});
