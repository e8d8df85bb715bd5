/** The substring index: it follows the store, prunes what retention removed, and rebuilds itself. */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { AuditStore } from '../../agent/store/audit-store.js';
import { SearchIndexer } from '../../agent/store/search-indexer.js';
import { detailsText, matchExpression, narrowTerms, trigrams } from '../../agent/store/search-text.js';
import type { NewActivityRecord } from '../../shared/activity-record.js';
import { makeTempDir } from '../helpers/temp-dir.js';

const record = (who: string): NewActivityRecord => ({
  Who: who,
  Action: 'Added',
  What: '/x',
  When: '2026-11-20T10:00:00Z',
  Where: 'h',
  ObjectType: 'File',
  DataSource: 'File System',
  DetailList: [{ PropertyName: 'Note', After: 'quote " and back\\slash' }],
});

function setup() {
  const dir = makeTempDir();
  const store = AuditStore.open({ file: path.join(dir, 'audit.db'), synchronous: 'NORMAL' });
  const search = path.join(dir, 'audit-search.db');
  const indexer = new SearchIndexer({ audit: store.file, search });
  const matches = (value: string): number[] => {
    const db = new Database(search, { readonly: true });
    try {
      return db
        .prepare('SELECT rowid FROM record_text WHERE record_text MATCH ? ORDER BY rowid')
        .pluck()
        .all(matchExpression([[trigrams(value)]])) as number[];
    } finally {
      db.close();
    }
  };
  return { dir, store, search, indexer, matches };
}

describe('search text', () => {
  it('splits values into distinct code-point trigrams, a bounded number of them', () => {
    expect(trigrams('abcab')).toEqual(['abc', 'bca', 'cab']);
    expect(trigrams('a😀bc')).toEqual(['a😀b', '😀bc']);
    expect(trigrams('x'.repeat(2) + 'abcdefghijklmnopqrstuvwxyz').length).toBeLessThanOrEqual(12);
    expect(trigrams('ab')).toEqual([]);
    expect(matchExpression([[trigrams('a"b')]])).toBe('("a""b")');
    expect(matchExpression([[['abc', 'bcd']], [['xyz'], ['uvw']]])).toBe('("abc" AND "bcd") AND (("xyz") OR ("uvw"))');
  });

  it("asks the index for a search's rarest trigrams only: one pool for single values, each value of several alone", () => {
    // Postings per trigram: an account's domain and "user" are in nearly every record.
    const postings: Record<string, number> = {
      ...Object.fromEntries(['cor', 'orp', 'rp\\', 'p\\u', '\\us', 'use', 'ser'].map((t) => [t, 9e6])),
      er4: 5e5,
      r41: 2e4,
      '417': 1e4,
      ...{ mov: 2e6, ove: 3e6, ved: 4e6 },
      ...{ bob: 3e5, obb: 1e3, bby: 2e3, ali: 2e5, lic: 5e4, ice: 6e6 },
    };
    const rarity = (trigram: string): number => {
      const count = postings[trigram.toLowerCase()];
      if (count === undefined) throw new Error(`no postings for ${trigram}`);
      return -count;
    };
    const account = trigrams('corp\\user417');
    expect(narrowTerms([[account]], rarity, 3)).toEqual([[['417', 'r41', 'er4']]]);
    // Who and Action of one value each: the account's rare trigrams stand for the common action's.
    expect(narrowTerms([[account], [trigrams('Moved')]], rarity, 3)).toEqual([[['417', 'r41', 'er4']]]);
    expect(narrowTerms([[trigrams('Moved')]], rarity, 3)).toEqual([[['Mov', 'ove', 'ved']]]);
    // Two values of one filter: either may match, so each keeps its own rarest.
    expect(narrowTerms([[trigrams('bobby'), trigrams('alice')]], rarity, 2)).toEqual([
      [
        ['obb', 'bby'],
        ['lic', 'ali'],
      ],
    ]);
    // Short values are kept whole; the result never names a trigram the search did not have.
    expect(narrowTerms([[['abc']], [['xyz'], ['uvw']]], rarity, 3)).toEqual([[['abc']], [['xyz'], ['uvw']]]);
  });

  it('indexes detail values without JSON escapes', () => {
    expect(detailsText(JSON.stringify([{ PropertyName: 'p', Before: 'a\\b', After: 'x"y' }]))).toBe('p\na\\b\nx"y');
    expect(detailsText(null)).toBeNull();
  });
});

describe('SearchIndexer', () => {
  it('indexes in chunks and finds values, case-insensitively, details included', () => {
    const { store, indexer, matches } = setup();
    store.insertBatch([record('HOST\\alice'), record('HOST\\bob'), record('HOST\\ALICIA')]);
    expect(indexer.step(2)).toBe(2);
    expect(indexer.state().indexed_upto).toBe(2);
    expect(indexer.catchUp()).toBe(1);
    expect(matches('alic')).toEqual([1, 3]);
    expect(matches('back\\sla')).toEqual([1, 2, 3]);
    expect(matches('ote')).toEqual([1, 2, 3]);
    indexer.close();
    store.close();
  });

  it('prunes the records retention removed', () => {
    const { store, indexer, matches } = setup();
    store.insertBatch([record('aaa1'), record('aaa2'), record('aaa3')]);
    indexer.catchUp();
    store.db.prepare('DELETE FROM activity_records WHERE seq <= 2').run();
    expect(indexer.prune(1000)).toBe(2);
    expect(matches('aaa')).toEqual([3]);
    expect(indexer.state().pruned_below).toBe(3);
    indexer.close();
    store.close();
  });

  it('rebuilds when the audit database is not the one it indexed', () => {
    const { dir, store, indexer, matches } = setup();
    store.insertBatch([record('first1'), record('first2')]);
    indexer.catchUp();
    store.close();
    for (const suffix of ['', '-wal', '-shm']) fs.rmSync(path.join(dir, `audit.db${suffix}`), { force: true });
    const other = AuditStore.open({ file: path.join(dir, 'audit.db'), synchronous: 'NORMAL' });
    other.insertBatch([record('second1'), record('second2'), record('second3')]);
    indexer.catchUp();
    expect(matches('first')).toEqual([]);
    expect(matches('second')).toEqual([1, 2, 3]);
    indexer.close();
    other.close();
  });

  it('starts over from a damaged index file', () => {
    const { store, search, indexer, matches } = setup();
    store.insertBatch([record('zed1')]);
    indexer.catchUp();
    indexer.close();
    fs.writeFileSync(search, 'not a database at all, just text that fills a page '.repeat(100));
    for (const suffix of ['-wal', '-shm']) fs.rmSync(search + suffix, { force: true });
    const again = new SearchIndexer({ audit: store.file, search });
    expect(again.catchUp()).toBe(1);
    expect(matches('zed')).toEqual([1]);
    again.close();
    store.close();
  });
});
