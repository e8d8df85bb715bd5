/**
 * An agent with audit users of each role and clients for them, for the audit API tests.
 * Users: `auditor` (reader + contributor), `reader` (reader), `writer` (contributor).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { TestAgent } from './test-agent.js';
import type { AgentOptions } from '../../agent/agent.js';
import type { ActivityRecord, NewActivityRecord } from '../../shared/activity-record.js';
import { AuditClient } from './audit-client.js';
import { startTestAgent } from './test-agent.js';
import { makeTempDir } from './temp-dir.js';
import { SettingsStore } from '../../agent/config/settings-store.js';
import { AuditUserService } from '../../agent/users/audit-user-service.js';

export const PASSWORD = 'correct horse battery';

export interface AuditFixture {
  agent: TestAgent;
  auditor: AuditClient;
  reader: AuditClient;
  writer: AuditClient;
  /**
   * Inserts records straight into the store (as the pipeline does) and waits until the audit API
   * serves them (the index; a fleet member's forwarding).
   */
  insert(records: NewActivityRecord[]): Promise<ActivityRecord[]>;
  /** Waits until every record in the agent's store is served by its audit API. */
  settle(): Promise<void>;
  stop(): Promise<void>;
}

/** Where a fixture's agent keeps the records its audit API serves (fleet-audit-backend.ts). */
export interface AuditBackend {
  name: string;
  /** Runs on the data folder before the agent starts. */
  prepare(dataDir: string): Promise<void>;
  agentOptions: Partial<AgentOptions>;
}

let backend: AuditBackend | null = null;

/** The backend of the fixtures this test file starts from now on (the agent's own SQLite by default). */
export function useAuditBackend(next: AuditBackend | null): void {
  backend = next;
}

/** The name of the backend fixtures use ('sqlite' by default), for test titles. */
export const auditBackendName = (): string => backend?.name ?? 'sqlite';

export async function startAuditFixture(options: Partial<AgentOptions> = {}): Promise<AuditFixture> {
  // The audit API tests compare answers with exactly the records they insert, so the agent
  // starts on an existing (empty) settings file: no first-run host, no self-audit record of it.
  let dataDir = options.dataDir;
  if (dataDir === undefined) {
    dataDir = makeTempDir();
    fs.writeFileSync(path.join(dataDir, 'settings.json'), '{}\n');
  }
  await addUsersOffline(dataDir, [
    { name: 'auditor', roles: ['reader', 'contributor'] },
    { name: 'reader', roles: ['reader'] },
    { name: 'writer', roles: ['contributor'] },
  ]);
  await backend?.prepare(dataDir);
  const agent = await startTestAgent({ ...backend?.agentOptions, ...options, dataDir });
  const fixture: AuditFixture = {
    agent,
    auditor: new AuditClient(agent, `auditor:${PASSWORD}`),
    reader: new AuditClient(agent, `reader:${PASSWORD}`),
    writer: new AuditClient(agent, `writer:${PASSWORD}`),
    async insert(records) {
      const stored: ActivityRecord[] = [];
      for (let i = 0; i < records.length; i += 5000) {
        stored.push(...agent.audit.store.insertBatch(records.slice(i, i + 5000)));
      }
      await fixture.settle();
      return stored;
    },
    async settle() {
      const max = agent.audit.store.db.prepare('SELECT max(seq) FROM activity_records').pluck().get() as number;
      await agent.audit.index.waitUntil(max, 20_000);
      await agent.fleet.current()?.waitForwarded(max, 30_000);
    },
    async stop() {
      for (const client of [fixture.auditor, fixture.reader, fixture.writer]) client.close();
      await agent.stop();
    },
  };
  return fixture;
}

/**
 * Adds audit users (password PASSWORD) to a data directory no agent runs on, as `vigil user add`
 * does then; users that exist are left alone. Users added through a running agent would be
 * recorded in its self-audit, and the audit API tests count records.
 */
export async function addUsersOffline(dataDir: string, users: Array<{ name: string; roles: string[] }>): Promise<void> {
  const settings = await SettingsStore.open(path.join(dataDir, 'settings.json'));
  const service = new AuditUserService(settings);
  try {
    for (const user of users) {
      if (!service.get(user.name)) await service.add({ ...user, password: PASSWORD });
    }
  } finally {
    service.close();
    await settings.close();
  }
}

export const recordsNs = (vendor = 'vigil'): string =>
  vendor === 'netwrix'
    ? 'http://schemas.netwrix.com/api/v1/activity_records/'
    : 'http://schemas.vigil.dev/api/v1/activity_records/';

/** Minimal XML reading for tests: the RIDs, the mark and the error parts of a response. */
export function xmlRids(xml: string): string[] {
  return [...xml.matchAll(/<RID>([^<]+)<\/RID>/g)].map((m) => m[1]!);
}
export function xmlMark(xml: string): string | null {
  return /<ContinuationMark>([^<]+)<\/ContinuationMark>/.exec(xml)?.[1] ?? null;
}
export function xmlError(xml: string): { category: string; description: string; location: string | null } {
  return {
    category: /<Category>([^<]*)<\/Category>/.exec(xml)?.[1] ?? '',
    description: /<Description>([^<]*)<\/Description>/.exec(xml)?.[1] ?? '',
    location: /<Location>([^<]*)<\/Location>/.exec(xml)?.[1] ?? null,
  };
}
