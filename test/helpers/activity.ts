/** Helpers for tests of the activity pipeline: watched folders, records, log lines, waiting. */
import fs from 'node:fs';
import path from 'node:path';
import type Database from 'better-sqlite3';
import type { TestAgent } from './test-agent.js';

export interface RecordRow {
  seq: number;
  action: string;
  object_type: string;
  what: string;
  who: string;
  data_source: string;
  plan_id: string | null;
  details: string | null;
}

export function records(db: Database.Database, dataSource = 'File System'): RecordRow[] {
  return db
    .prepare(
      'SELECT seq, action, object_type, what, who, data_source, plan_id, details FROM activity_records WHERE data_source = ? ORDER BY seq',
    )
    .all(dataSource) as RecordRow[];
}

/** `Action What` of each file system record, in commit order. */
export function actions(db: Database.Database): string[] {
  return records(db).map((r) => `${r.action} ${r.what}`);
}

/** Every line of every uncompressed log file in `<dataDir>/logs`, header rows included. */
export function logLines(dataDir: string): string[] {
  const dir = path.join(dataDir, 'logs');
  if (!fs.existsSync(dir)) return [];
  const lines: string[] = [];
  for (const name of fs.readdirSync(dir).sort()) {
    if (!/\.(tsv|json)$/.test(name)) continue;
    const text = fs.readFileSync(path.join(dir, name), 'utf8');
    lines.push(...text.split('\n').slice(0, -1));
  }
  return lines;
}

export async function waitFor<T>(
  probe: () => T | Promise<T>,
  accept: (value: T) => boolean,
  timeoutMs = 15_000,
  describe = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last = await probe();
  while (!accept(last)) {
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${describe}; last value: ${JSON.stringify(last)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    last = await probe();
  }
  return last;
}

/** Points the agent's first host at `folders` and waits until they are watched and scanned. */
export async function monitorFolders(agent: TestAgent, folders: string[], exclude: string[] = []): Promise<string> {
  await agent.settings.update((draft) => {
    const host = draft.hosts[0]!;
    host.includePaths = folders;
    host.excludePaths = exclude;
  });
  await agent.activity.monitor.ready();
  return agent.settings.current.hosts[0]!.id;
}

/** Fast watcher timings for tests (the product's are 100 ms settle, 1 s sweeps). */
export const TEST_TIMINGS = { sourceTimings: { settleMs: 50, maxDelayMs: 300, sweepMs: 300, retryMs: 500 } };
