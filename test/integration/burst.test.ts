/**
 * A burst of 20,000 file creates from another process yields exactly 20,000 Added records and
 * 20,000 log lines ("Nothing lost"), with the product's watcher timings.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { TestAgent } from '../helpers/test-agent.js';
import { REPO_ROOT } from '../helpers/cli.js';
import { startTestAgent } from '../helpers/test-agent.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { logLines, monitorFolders, records, waitFor } from '../helpers/activity.js';

const WRITER = path.join(REPO_ROOT, 'test', 'fixtures', 'burst-writer.mjs');
const BURST = 20_000;

let agent: TestAgent | null = null;
afterAll(async () => agent?.stop());

describe('a burst of file creates', () => {
  it(`records all ${BURST} creates in a flat folder exactly once, in the store and in the log file`, async () => {
    agent = await startTestAgent();
    const watched = makeTempDir('vigil-burst-');
    const hostId = await monitorFolders(agent, [watched]);
    // Asynchronously: the agent in this process keeps reading its events while the writer runs.
    await promisify(execFile)(process.execPath, [WRITER, watched, String(BURST)]);

    const db = agent.store.db;
    await waitFor(
      () => records(db).length,
      (n) => n >= BURST,
      60_000,
      `${BURST} records`,
    );
    // Quiet time for any late or duplicate record to show up before counting exactly.
    await agent.activity.monitor.source(hostId)!.settle();
    await new Promise((resolve) => setTimeout(resolve, 2500));
    await agent.activity.pipeline.flush();

    const rows = records(db);
    expect(rows).toHaveLength(BURST);
    expect(rows.every((r) => r.action === 'Added' && r.object_type === 'File')).toBe(true);
    const expected = Array.from({ length: BURST }, (_, i) => path.join(watched, `file-${i}.txt`));
    expect(new Set(rows.map((r) => r.what))).toEqual(new Set(expected));
    const lines = logLines(agent.dataDir);
    expect(lines).toHaveLength(BURST);
    expect(new Set(lines.map((l) => l.split('\t')[5]))).toEqual(new Set(expected));
    expect(agent.activity.status.host(hostId)!.stats).toMatchObject({ receivedCount: BURST, droppedCount: 0 });
    expect(fs.readdirSync(watched)).toHaveLength(BURST);
  }, 120_000);
});
