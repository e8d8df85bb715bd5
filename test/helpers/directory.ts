/** Helpers for directory monitoring tests: a domain on the test slapd, Changes policies, records, waiting. */
import { expect } from 'vitest';
import type Database from 'better-sqlite3';
import type { ActivityDetail } from '../../shared/activity-record.js';
import type { TestAgent } from './test-agent.js';
import { READER_DN, READER_PASSWORD, SUFFIX, type SlapdServer } from './slapd-server.js';

export interface DirectoryRecord {
  seq: number;
  action: string;
  what: string;
  who: string;
  objectType: string;
  dataSource: string;
  where: string;
  plan: string | null;
  planId: string | null;
  item: string | null;
  details: ActivityDetail[];
}

export function directoryRecords(db: Database.Database): DirectoryRecord[] {
  const rows = db
    .prepare(
      `SELECT seq, action, what, who, object_type, data_source, location, plan_name, plan_id, item_name, details
       FROM activity_records WHERE data_source IN ('LDAP Directory', 'Active Directory') ORDER BY seq`,
    )
    .all() as Array<Record<string, string | number | null>>;
  return rows.map((r) => ({
    seq: r['seq'] as number,
    action: r['action'] as string,
    what: r['what'] as string,
    who: r['who'] as string,
    objectType: r['object_type'] as string,
    dataSource: r['data_source'] as string,
    where: r['location'] as string,
    plan: r['plan_name'] as string | null,
    planId: r['plan_id'] as string | null,
    item: r['item_name'] as string | null,
    details: r['details'] ? (JSON.parse(r['details'] as string) as ActivityDetail[]) : [],
  }));
}

/** A Changes policy document. */
export function changesPolicyXml(name: string, changes: string, enabled = true): string {
  return `<Policy><Name>${name}</Name><IsEnabled>${enabled}</IsEnabled><Changes>${changes}</Changes></Policy>`;
}

/** Adds the test slapd as a domain read by the reader account, polled every second by default. */
export async function addTestDomain(
  agent: TestAgent,
  slapd: SlapdServer,
  fields: { name?: string; pollingIntervalSeconds?: number; password?: string } = {},
): Promise<string> {
  const domain = await agent.resources.domains.add(
    {
      name: fields.name ?? 'example.test',
      ldapServer: slapd.url,
      userName: READER_DN,
      password: fields.password ?? READER_PASSWORD,
      baseDn: SUFFIX,
      pollingIntervalSeconds: fields.pollingIntervalSeconds ?? 1,
      // The test slapd has no certificate, yet its rootDSE lists StartTLS.
      tls: 'none',
    },
    'test',
  );
  return domain.id;
}

export async function waitFor<T>(
  what: string,
  probe: () => T | undefined | null | false,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value) return value;
    if (Date.now() > deadline) expect.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Waits until a poll that started after this call has finished (nothing more will arrive for earlier changes). */
export async function nextPoll(agent: TestAgent, domainId: string): Promise<void> {
  const source = agent.activity.directory.source(domainId);
  if (!source) expect.fail(`domain ${domainId} is not monitored`);
  await source.rescan();
}

export function detail(record: DirectoryRecord, name: string): ActivityDetail | undefined {
  return record.details.find((d) => d.PropertyName.toLowerCase() === name.toLowerCase());
}
