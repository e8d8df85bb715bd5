/**
 * Every filter and operator of the audit search (docs/audit-api.md), in XML and in JSON, over real
 * HTTPS against real records, compared with the in-memory oracle; the combination rules; the
 * JSON spellings (string, object, array, any key case, "Monitoring Plan"). Every XML response
 * is validated against docs/schemas/.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  FILTER_SPECS,
  textCondition,
  whenCondition,
  workingHoursCondition,
  type FilterCondition,
  type TextFilter,
} from '../../shared/audit-filters.js';
import { filterListToJson } from '../../shared/audit-filter-json.js';
import type { ActivityRecord, NewActivityRecord } from '../../shared/activity-record.js';
import { UnixGroupFiles } from '../../agent/platform/local-groups.js';
import { referenceMatches } from '../helpers/reference-filter.js';
import { searchXml } from '../helpers/search-xml.js';
import { validateResponse } from '../helpers/xml-schema.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { recordsNs, startAuditFixture, xmlRids, type AuditFixture } from '../helpers/audit-fixture.js';

const DAY = 86_400_000;
let fx: AuditFixture;
let stored: ActivityRecord[];
let groupFiles: { group: string; passwd: string };

function localIso(ms: number): string {
  // The same instant written with a +05:30 offset, as a client in another zone might.
  const shifted = new Date(ms + 5.5 * 3600_000).toISOString().replace(/\.\d{3}Z$/, '');
  return `${shifted}+05:30`;
}

function records(): NewActivityRecord[] {
  const now = Date.now();
  const d = new Date(now);
  const startOfToday = new Date(d.getFullYear(), d.getMonth(), d.getDate()).getTime();
  const startOfYesterday = new Date(d.getFullYear(), d.getMonth(), d.getDate() - 1).getTime();
  // Today's and yesterday's records stay inside their local day whatever the hour the suite
  // runs (spreading them by whole hours pushed "yesterday" into today after 23:00); the older
  // ones are spread over the hours of their days so WorkingHours has both matches and misses.
  const when = (i: number): number => {
    const hours = i * 3_600_000;
    switch (i % 6) {
      case 0:
        return startOfToday + ((now - startOfToday) * (i + 1)) / 40;
      case 1:
        return startOfYesterday + (i + 0.5) * 2_400_000; // 36 × 40 min < 24 h
      case 2:
        return now - 5 * DAY + hours;
      case 3:
        return now - 20 * DAY + hours;
      case 4:
        return now - 60 * DAY + hours;
      default:
        return now + 2 * DAY + hours;
    }
  };
  const who = ['HOST\\alice', 'HOST\\bob', 'ENTERPRISE\\Administrator', 'carol@example.com', 'HOST\\Müller', 'x_%\\y'];
  const out: NewActivityRecord[] = [];
  for (let i = 0; i < 36; i++) {
    const r: NewActivityRecord = {
      Who: who[i % who.length]!,
      Action: ['Added', 'Removed', 'Modified', 'Read (Failed Attempt)'][i % 4]!,
      What: [`/home/alice/report-${i}.txt`, `C:\\Users\\Bob\\Ünïcode-${i}.doc`, `/srv/100%_done/${i}`][i % 3]!,
      When: localIso(when(i)),
      Where: ['ws-01.corp.local', 'EnterpriseDC1', 'host-β'][i % 3]!,
      ObjectType: ['File', 'Folder', 'Mailbox', 'user'][i % 4]!,
      DataSource: i % 6 === 5 ? 'Vigil API' : 'File System',
    };
    if (i % 2 === 0) r.MonitoringPlan = { Name: ['Local files', 'Plan_A'][i % 4 === 0 ? 0 : 1]! };
    if (i % 3 === 0) r.Item = { Name: 'enterprise.local (Domain)' };
    if (i % 5 !== 0) r.Workstation = ['WS-01', '10.0.0.7', 'wörk'][i % 3]!;
    if (i % 4 === 1) r.DetailList = [{ PropertyName: 'Size', Before: String(i), After: String(i * 2) }];
    if (i % 7 === 3)
      r.DetailList = [
        { PropertyName: 'Owner', Before: 'alice', After: 'Bob' },
        { PropertyName: 'Note', Message: 'moved by policy' },
      ];
    out.push(r);
  }
  return out;
}

beforeAll(async () => {
  const dir = makeTempDir();
  groupFiles = { group: path.join(dir, 'group'), passwd: path.join(dir, 'passwd') };
  fs.writeFileSync(groupFiles.group, 'auditors:x:1001:alice,müller\nstaff:x:1002:\nempty:x:1003:\n');
  fs.writeFileSync(groupFiles.passwd, 'bob:x:1000:1002::/home/bob:/bin/sh\n');
  fx = await startAuditFixture({
    localGroups: new UnixGroupFiles({ groupFile: groupFiles.group, passwdFile: groupFiles.passwd, hostname: 'HOST' }),
  });
  stored = await fx.insert(records());
});
afterAll(() => fx.stop());

const groupsForOracle = (): Map<string, string[]> =>
  new Map([
    ['auditors', ['alice', 'host\\alice', '.\\alice', 'müller', 'host\\müller', '.\\müller']],
    ['HOST\\staff', ['bob', 'host\\bob', '.\\bob']],
  ]);

function expected(conditions: FilterCondition[]): string[] {
  return stored.filter((r) => referenceMatches(r, conditions, Date.now(), groupsForOracle())).map((r) => r.RID);
}

async function searchBoth(conditions: FilterCondition[]): Promise<{ xml: string[]; json: string[] }> {
  const xmlResponse = await fx.reader.postXml('activity_records/search', searchXml(conditions, recordsNs()));
  expect(xmlResponse.status, xmlResponse.body).toBe(200);
  validateResponse(xmlResponse.body);
  const jsonResponse = await fx.reader.postJson('activity_records/search', {
    FilterList: filterListToJson(conditions),
  });
  expect(jsonResponse.status, jsonResponse.body).toBe(200);
  const json = (JSON.parse(jsonResponse.body) as { ActivityRecordList: ActivityRecord[] }).ActivityRecordList.map(
    (r) => r.RID,
  );
  return { xml: xmlRids(xmlResponse.body), json };
}

/** Needles for each operator, cut from a real value so every operator has matches. */
function needles(value: string): Record<string, string> {
  const flip = (s: string): string => (s === s.toUpperCase() ? s.toLowerCase() : s.toUpperCase());
  const mid = value.slice(1, Math.max(2, value.length - 1));
  return {
    Contains: flip(mid),
    DoesNotContain: flip(mid),
    Equals: flip(value),
    NotEqualTo: flip(value),
    StartsWith: flip(value.slice(0, Math.max(1, Math.ceil(value.length / 2)))),
    EndsWith: flip(value.slice(Math.floor(value.length / 2))),
  };
}

function sampleValue(filter: TextFilter): string {
  const r = stored.find((x) => x.DetailList && x.DetailList.length > 1) ?? stored[0]!;
  switch (filter) {
    case 'RID':
      return stored[3]!.RID;
    case 'Who':
      return stored[1]!.Who;
    case 'Where':
      return stored[0]!.Where;
    case 'ObjectType':
      return 'Mailbox';
    case 'What':
      return stored[1]!.What;
    case 'DataSource':
      return 'File System';
    case 'MonitoringPlan':
      return 'Plan_A';
    case 'Item':
      return 'enterprise.local (Domain)';
    case 'Workstation':
      return '10.0.0.7';
    case 'Detail':
      return 'moved by policy';
    case 'Before':
      return r.DetailList![0]!.Before!;
    case 'After':
      return r.DetailList![0]!.After!;
    case 'Action':
      return 'Read (Failed Attempt)';
  }
}

describe('every text filter and operator, XML and JSON', () => {
  const filters = Object.keys(FILTER_SPECS).filter((f) => f !== 'When' && f !== 'WorkingHours') as TextFilter[];
  for (const filter of filters) {
    for (const operator of FILTER_SPECS[filter].operators.filter((o) => o !== 'InGroup' && o !== 'NotInGroup')) {
      it(`${filter} ${operator}`, async () => {
        const value = needles(sampleValue(filter))[operator]!;
        const conditions = [textCondition(filter, operator, value, '/')];
        const want = expected(conditions);
        expect(want.length).toBeGreaterThan(0); // each case must select something...
        expect(want.length).toBeLessThan(stored.length); // ...and leave something out
        const got = await searchBoth(conditions);
        expect(got.xml).toEqual(want);
        expect(got.json).toEqual(want);
      });
    }
  }
});

describe('Who InGroup / NotInGroup against local groups', () => {
  it.each([
    ['InGroup', 'auditors'],
    ['NotInGroup', 'auditors'],
    ['InGroup', 'HOST\\staff'],
  ] as const)('%s %s', async (operator, group) => {
    const conditions = [textCondition('Who', operator, group, '/')];
    const want = expected(conditions);
    expect(want.length).toBeGreaterThan(0);
    const got = await searchBoth(conditions);
    expect(got.xml).toEqual(want);
    expect(got.json).toEqual(want);
  });

  it('refuses a group this machine does not have, naming it', async () => {
    const res = await fx.reader.postJson('activity_records/search', {
      FilterList: { Who: { InGroup: 'Domain\\Administrators' } },
    });
    expect(res.status).toBe(400);
    const error = JSON.parse(res.body).ErrorList[0];
    expect(error.Category).toBe('InputError');
    expect(error.Description).toMatch(/^0x[0-9A-F]{8} .*Domain\\Administrators/);
  });
});

describe('When and WorkingHours', () => {
  const now = Date.now();
  const iso = (ms: number): string => new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');
  const cases: Array<[string, FilterCondition[]]> = [
    ['Today', [whenCondition(undefined, { timeframe: 'Today' }, '/')]],
    ['Yesterday', [whenCondition(undefined, { timeframe: 'Yesterday' }, '/')]],
    ['LastSevenDays', [whenCondition(undefined, { timeframe: 'LastSevenDays' }, '/')]],
    ['LastThirtyDays', [whenCondition(undefined, { timeframe: 'LastThirtyDays' }, '/')]],
    ['NotEqualTo LastSevenDays', [whenCondition('NotEqualTo', { timeframe: 'LastSevenDays' }, '/')]],
    ['From/To in UTC', [whenCondition(undefined, { from: iso(now - 30 * DAY), to: iso(now - 3 * DAY) }, '/')]],
    [
      'From/To with offsets',
      [whenCondition(undefined, { from: localIso(now - 10 * DAY), to: '2099-01-01T00:00:00-08:00' }, '/')],
    ],
    ['From only', [whenCondition(undefined, { from: iso(now - 2 * DAY), to: null }, '/')]],
    ['To only, NotEqualTo', [whenCondition('NotEqualTo', { from: null, to: iso(now - 2 * DAY) }, '/')]],
    [
      'two When values OR',
      [
        whenCondition(undefined, { timeframe: 'Yesterday' }, '/'),
        whenCondition(undefined, { from: iso(now - 70 * DAY), to: iso(now - 50 * DAY) }, '/'),
      ],
    ],
    ['WorkingHours', [workingHoursCondition(undefined, '09:00:00+01:00', '17:00:00+01:00', '/')]],
    ['WorkingHours NotEqualTo', [workingHoursCondition('NotEqualTo', '09:00:00Z', '17:30:00Z', '/')]],
    ['WorkingHours over midnight', [workingHoursCondition(undefined, '22:00:00-05:00', '06:00:00-05:00', '/')]],
  ];
  for (const [name, conditions] of cases) {
    it(name, async () => {
      const want = expected(conditions);
      expect(want.length).toBeGreaterThan(0);
      expect(want.length).toBeLessThan(stored.length);
      const got = await searchBoth(conditions);
      expect(got.xml).toEqual(want);
      expect(got.json).toEqual(want);
    });
  }
});

describe('combination rules', () => {
  const c = textCondition;
  const cases: Array<[string, FilterCondition[]]> = [
    ['different filters AND', [c('Who', 'Contains', 'alice', '/'), c('ObjectType', 'Equals', 'file', '/')]],
    ['repeated positive values OR', [c('Action', 'Equals', 'Added', '/'), c('Action', 'Equals', 'removed', '/')]],
    [
      'repeated negative values AND',
      [c('Who', 'NotEqualTo', 'HOST\\alice', '/'), c('Who', 'DoesNotContain', 'admin', '/')],
    ],
    [
      'positives OR, then negatives AND',
      [
        c('What', 'StartsWith', '/home', '/'),
        c('What', 'StartsWith', '/srv', '/'),
        c('What', 'DoesNotContain', 'report-1', '/'),
      ],
    ],
    [
      'text, When and WorkingHours together',
      [
        c('Where', 'Contains', 'dc1', '/'),
        whenCondition(undefined, { timeframe: 'LastThirtyDays' }, '/'),
        c('DataSource', 'Equals', 'file system', '/'),
      ],
    ],
    ['metacharacters are literal', [c('What', 'Contains', '100%_', '/'), c('Who', 'Contains', '_%\\', '/')]],
    ['non-ASCII, case-insensitive', [c('Who', 'EndsWith', 'MÜLLER', '/'), c('What', 'Contains', 'ÜNÏ', '/')]],
  ];
  for (const [name, conditions] of cases) {
    it(name, async () => {
      const want = expected(conditions);
      expect(want.length).toBeGreaterThan(0);
      const got = await searchBoth(conditions);
      expect(got.xml).toEqual(want);
      expect(got.json).toEqual(want);
    });
  }
});

describe('JSON spellings', () => {
  const rids = async (body: unknown): Promise<string[]> => {
    const res = await fx.reader.postJson('activity_records/search', body);
    expect(res.status, res.body).toBe(200);
    return (JSON.parse(res.body) as { ActivityRecordList: ActivityRecord[] }).ActivityRecordList.map((r) => r.RID);
  };

  it('accepts a string, an operator object, an array of both, and keys in any case', async () => {
    const want = expected([
      textCondition('DataSource', 'Contains', 'file', '/'),
      textCondition('DataSource', 'StartsWith', 'Exchange', '/'),
      textCondition('Who', 'NotEqualTo', 'HOST\\alice', '/'),
      textCondition('Action', 'Equals', 'Added', '/'),
      textCondition('Action', 'Equals', 'Removed', '/'),
    ]);
    const body = {
      filterlist: {
        datasource: ['file', { startswith: 'Exchange' }],
        WHO: { NotEqualTo: 'HOST\\alice' },
        Action: ['Added', 'Removed'],
      },
    };
    expect(await rids(body)).toEqual(want);
  });

  it('accepts "Monitoring Plan" with a space and several operators in one object', async () => {
    const want = expected([
      textCondition('MonitoringPlan', 'StartsWith', 'plan', '/'),
      textCondition('MonitoringPlan', 'EndsWith', 'files', '/'),
    ]);
    expect(await rids({ FilterList: { 'Monitoring Plan': { StartsWith: 'plan', EndsWith: 'files' } } })).toEqual(want);
  });

  it('takes When as {"LastSevenDays": ""}, an array, or wrapped in NotEqualTo', async () => {
    const want = expected([
      whenCondition(undefined, { timeframe: 'LastSevenDays' }, '/'),
      whenCondition(undefined, { timeframe: 'Yesterday' }, '/'),
    ]);
    expect(await rids({ FilterList: { When: [{ LastSevenDays: '' }, 'Yesterday'] } })).toEqual(want);
    const negated = expected([whenCondition('NotEqualTo', { timeframe: 'LastSevenDays' }, '/')]);
    expect(await rids({ FilterList: { when: { notequalto: { lastsevendays: '' } } } })).toEqual(negated);
  });

  it('reads the worked example of docs/audit-api.md', async () => {
    const res = await fx.reader.postJson('activity_records/search', {
      FilterList: {
        Who: { NotEqualTo: 'Administrator' },
        MonitoringPlan: 'My Hybrid Cloud enterprise',
        DataSource: ['Active Directory', { StartsWith: 'Exchange' }],
        Action: ['Added', 'Removed'],
        ObjectType: { DoesNotContain: 'Group' },
        When: { From: '2016-01-16T16:30:00+11:00', To: '2017-01-01T00:00:00Z' },
      },
    });
    expect(res.status, res.body).toBe(200);
    expect(JSON.parse(res.body).ActivityRecordList).toEqual([]);
  });
});
