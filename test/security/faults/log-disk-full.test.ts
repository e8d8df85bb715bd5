/**
 * The disk of the activity log files fills up (docs/activity-pipeline.md, docs/security.md, F05; "the log
 * disk full → writing stops with a status warning and resumes"). The data directory's
 * `logs/` folder is a small tmpfs that the test fills:
 * - down to less than `logStorage.minLocalFreeSpace`: the output stops writing with a Warning
 *   before the disk is full;
 * - to the last byte with no free-space margin: the write fails (ENOSPC), the output reports an
 *   Error and cuts what it had half written.
 * In both cases the records are still committed to the audit database, the drops are counted,
 * and writing resumes by itself once space is freed, with whole lines only in the file.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { TestAgent } from '../../helpers/test-agent.js';
import { logLines, monitorFolders, TEST_TIMINGS, waitFor } from '../../helpers/activity.js';
import { startTestAgent } from '../../helpers/test-agent.js';
import { makeTempDir } from '../../helpers/temp-dir.js';
import { canMountTmpfs, mountTmpfs, type Tmpfs } from '../../helpers/tmpfs.js';

const MB = 1024 * 1024;
let agent: TestAgent | null = null;
let disk: Tmpfs | null = null;
afterEach(async () => {
  await agent?.stop();
  agent = null;
  disk?.unmount();
  disk = null;
});

async function agentWithLogsOn(minLocalFreeSpace: number): Promise<{ watched: string; outputId: string }> {
  const dataDir = makeTempDir();
  disk = mountTmpfs(8 * MB);
  fs.symlinkSync(disk!.dir, path.join(dataDir, 'logs'));
  agent = await startTestAgent({ dataDir, activity: TEST_TIMINGS });
  await agent.settings.update((draft) => {
    draft.logStorage.minLocalFreeSpace = minLocalFreeSpace;
  });
  const watched = makeTempDir('vigil-watched-');
  await monitorFolders(agent, [watched]);
  const outputId = agent.settings.current.outputs.find((o) => o.type === 'LogFile')!.id;
  return { watched, outputId };
}

function fileRecordCount(a: TestAgent, prefix: string): number {
  return a.store.db
    .prepare("SELECT count(*) FROM activity_records WHERE data_source = 'File System' AND what LIKE ?")
    .pluck()
    .get(`%${prefix}%`) as number;
}

async function createFiles(watched: string, prefix: string, n: number): Promise<void> {
  for (let i = 0; i < n; i++) fs.writeFileSync(path.join(watched, `${prefix}-${i}.txt`), 'x');
  await waitFor(
    () => fileRecordCount(agent!, `${prefix}-`),
    (count) => count >= n,
    15_000,
    `${n} records of ${prefix}`,
  );
}

describe.skipIf(!canMountTmpfs)('the log disk fills up', () => {
  it('below minLocalFreeSpace: writing stops with a Warning, records stay in the store, writing resumes once space is back', async () => {
    const { watched, outputId } = await agentWithLogsOn(2 * MB);
    await createFiles(watched, 'before', 5);
    await waitFor(
      () => logLines(agent!.dataDir).filter((l) => l.includes('before-')).length,
      (n) => n === 5,
    );

    disk!.fill(1 * MB); // 1 MB left, under the 2 MB minimum
    await new Promise((r) => setTimeout(r, 1100)); // the guard re-reads free space at most once a second
    await createFiles(watched, 'blocked', 10);
    const blocked = await waitFor(
      () => agent!.activity.status.output(outputId)!,
      (view) => view.status.type === 'Warning',
    );
    expect(blocked.status.summary).toBe('Log file writing stopped');
    expect(blocked.status.details).toContain('logStorage.minLocalFreeSpace');
    expect(blocked.status.details).toContain('still stored in the audit database');
    expect(blocked.stats.droppedCount).toBeGreaterThanOrEqual(10);
    expect(logLines(agent!.dataDir).filter((l) => l.includes('blocked-'))).toEqual([]);
    expect(fileRecordCount(agent!, 'blocked-')).toBe(10);

    disk!.release();
    await new Promise((r) => setTimeout(r, 1100));
    await createFiles(watched, 'after', 5);
    await waitFor(
      () => logLines(agent!.dataDir).filter((l) => l.includes('after-')).length,
      (n) => n === 5,
    );
    expect(agent!.activity.status.output(outputId)!.status.type).toBe('OK');
    const history = agent!.activity.status.output(outputId)!.statusHistory.map((s) => s.type);
    expect(history).toContain('Warning');
  });

  it('to the last byte (no margin): the write fails with ENOSPC, no torn line is left, writing resumes once space is back', async () => {
    const { watched, outputId } = await agentWithLogsOn(0);
    await createFiles(watched, 'before', 5);
    await waitFor(
      () => logLines(agent!.dataDir).filter((l) => l.includes('before-')).length,
      (n) => n === 5,
    );

    disk!.fill();
    // Enough lines to need new pages: the last page of the file may still have room.
    await createFiles(watched, 'enospc', 200);
    // A later small batch may fit in the last page again, so look at the status history.
    const failed = await waitFor(
      () => agent!.activity.status.output(outputId)!,
      (view) => view.statusHistory.some((s) => s.type === 'Error'),
    );
    expect(failed.statusHistory.find((s) => s.type === 'Error')).toMatchObject({
      summary: 'Log file write failed',
      details: expect.stringContaining('ENOSPC'),
    });
    expect(fileRecordCount(agent!, 'enospc-')).toBe(200);
    expect(failed.stats.droppedCount).toBeGreaterThanOrEqual(1);

    disk!.release();
    await new Promise((r) => setTimeout(r, 1100));
    await createFiles(watched, 'after', 5);
    await waitFor(
      () => logLines(agent!.dataDir).filter((l) => l.includes('after-')).length,
      (n) => n === 5,
    );
    expect(agent!.activity.status.output(outputId)!.status.type).toBe('OK');
    // Whole lines only: every line of the file is a record line (or the header row).
    for (const name of fs.readdirSync(disk!.dir).filter((n) => n.endsWith('.tsv'))) {
      const text = fs.readFileSync(path.join(disk!.dir, name), 'utf8');
      expect(text.endsWith('\n')).toBe(true);
      for (const line of text.split('\n').slice(0, -1)) expect(line.split('\t').length).toBeGreaterThan(5);
    }
  });
});
