/**
 * File activity as a user sees it: a real agent watching a temporary folder turns creates,
 * edits, renames, moves and deletes into activity records and log lines (docs/activity-pipeline.md).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { TestAgent } from '../helpers/test-agent.js';
import { startTestAgent } from '../helpers/test-agent.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { actions, logLines, monitorFolders, records, TEST_TIMINGS, waitFor } from '../helpers/activity.js';

let agent: TestAgent | null = null;
afterEach(async () => {
  await agent?.stop();
  agent = null;
});

async function start(dataDir = makeTempDir()): Promise<TestAgent> {
  agent = await startTestAgent({ dataDir, activity: TEST_TIMINGS });
  return agent;
}

/** Lets the kernel's events arrive, then waits until they are records. */
async function settled(a: TestAgent): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 100));
  const hostId = a.settings.current.hosts[0]!.id;
  await a.activity.monitor.source(hostId)?.settle();
  await a.activity.pipeline.flush();
}

describe('file activity', () => {
  it('records creates, edits, renames, moves and deletes of files and folders, once each', async () => {
    const a = await start();
    const watched = makeTempDir('vigil-watched-');
    const hostId = await monitorFolders(a, [watched]);
    const p = (...parts: string[]): string => path.join(watched, ...parts);

    fs.writeFileSync(p('report.txt'), 'first draft');
    fs.mkdirSync(p('projects'));
    await settled(a);
    fs.appendFileSync(p('report.txt'), ', second draft');
    fs.renameSync(p('report.txt'), p('final.txt'));
    await settled(a);
    fs.renameSync(p('final.txt'), p('projects', 'final.txt'));
    fs.renameSync(p('projects'), p('archive'));
    await settled(a);
    fs.rmSync(p('archive'), { recursive: true });
    await settled(a);

    expect(actions(a.store.db)).toEqual([
      `Added ${p('report.txt')}`,
      `Added ${p('projects')}`,
      // The append and the rename were seen in one settle window: the rename carries the file.
      `Renamed ${p('final.txt')}`,
      `Modified ${p('final.txt')}`,
      // Moved into a folder that was renamed in the same moment: the net result.
      `Renamed ${p('archive')}`,
      `Moved ${p('archive', 'final.txt')}`,
      `Removed ${p('archive', 'final.txt')}`,
      `Removed ${p('archive')}`,
    ]);
    const rows = records(a.store.db);
    const hostname = os.hostname();
    for (const row of rows) {
      expect(row.who).toBe(`${hostname}\\${os.userInfo().username}`);
      expect(row.plan_id).toBe(hostId);
    }
    expect(rows.map((r) => r.object_type)).toEqual([
      'File',
      'Folder',
      'File',
      'File',
      'Folder',
      'File',
      'File',
      'Folder',
    ]);
    const moved = rows.find((r) => r.action === 'Moved')!;
    expect(JSON.parse(moved.details!)).toContainEqual({
      PropertyName: 'Path',
      Before: p('final.txt'),
      After: p('archive', 'final.txt'),
    });

    // One log line per record, in the documented column order.
    const lines = logLines(a.dataDir);
    expect(lines).toHaveLength(rows.length);
    const columns = lines.map((line) => line.split('\t'));
    expect(columns.map((c) => c.length)).toEqual(lines.map(() => 9));
    expect(columns.map((c) => `${c[3]} ${c[4]}`)).toEqual([
      'Add FILE',
      'Add FOLD',
      'Ren FILE',
      'Upd FILE',
      'Ren FOLD',
      'Ren FILE',
      'Del FILE',
      'Del FOLD',
    ]);
    expect(columns[5]!.slice(5, 7)).toEqual([p('final.txt'), p('archive', 'final.txt')]);
    // The TSV writes a backslash as `\\` (docs/activity-pipeline.md).
    expect(columns[0]![8]).toBe(`${hostname}\\\\${os.userInfo().username}`);
    expect(columns[0]![0]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('records every file created inside brand-new folders, however fast they appear', async () => {
    const a = await start();
    const watched = makeTempDir('vigil-watched-');
    await monitorFolders(a, [watched]);
    const expected = new Set<string>();
    for (let d = 0; d < 50; d++) {
      const dir = path.join(watched, `batch-${d}`, 'nested');
      fs.mkdirSync(dir, { recursive: true });
      expected.add(path.dirname(dir));
      expected.add(dir);
      for (let f = 0; f < 40; f++) {
        const file = path.join(dir, `file-${f}.dat`);
        fs.writeFileSync(file, 'x');
        expected.add(file);
      }
    }
    await waitFor(
      () => records(a.store.db).length,
      (n) => n >= expected.size,
      20_000,
      'all records',
    );
    await settled(a);
    const rows = records(a.store.db);
    expect(rows.every((r) => r.action === 'Added')).toBe(true);
    expect(rows.map((r) => r.what).sort()).toEqual([...expected].sort());
  });

  it('leaves out excluded folders and its own data folder', async () => {
    const watched = makeTempDir('vigil-watched-');
    // The data dir lives inside the watched folder: its log and database writes must not loop.
    const a = await start(path.join(watched, 'vigil-data'));
    fs.mkdirSync(path.join(watched, 'private'));
    await monitorFolders(a, [watched], [path.join(watched, 'private')]);
    fs.writeFileSync(path.join(watched, 'private', 'secret.txt'), 's');
    fs.writeFileSync(path.join(watched, 'public.txt'), 'p');
    await waitFor(
      () => records(a.store.db).length,
      (n) => n >= 1,
    );
    await settled(a);
    await new Promise((resolve) => setTimeout(resolve, 500));
    await settled(a);
    expect(actions(a.store.db)).toEqual([`Added ${path.join(watched, 'public.txt')}`]);
  });

  it('reports what changed while the agent was down, exactly once, after a restart', async () => {
    const dataDir = makeTempDir();
    const watched = makeTempDir('vigil-watched-');
    fs.writeFileSync(path.join(watched, 'kept.txt'), 'kept');
    fs.writeFileSync(path.join(watched, 'edited.txt'), 'v1');
    fs.writeFileSync(path.join(watched, 'deleted.txt'), 'gone soon');
    fs.writeFileSync(path.join(watched, 'renamed.txt'), 'r');
    let a = await start(dataDir);
    await monitorFolders(a, [watched]);
    expect(records(a.store.db)).toHaveLength(0); // what was there before is the baseline
    await a.stop();
    agent = null;

    fs.writeFileSync(path.join(watched, 'edited.txt'), 'version two');
    fs.rmSync(path.join(watched, 'deleted.txt'));
    fs.writeFileSync(path.join(watched, 'created.txt'), 'new');
    fs.renameSync(path.join(watched, 'renamed.txt'), path.join(watched, 'renamed-while-down.txt'));

    a = await start(dataDir);
    await a.activity.monitor.ready();
    const rows = records(a.store.db);
    expect(rows.map((r) => `${r.action} ${path.basename(r.what)}`).sort()).toEqual([
      'Added created.txt',
      'Modified edited.txt',
      'Removed deleted.txt',
      'Renamed renamed-while-down.txt',
    ]);
    for (const row of rows) expect(row.details).toContain('Found by a folder scan');
    await a.stop();

    // A second restart with nothing changed finds nothing new.
    a = await start(dataDir);
    await a.activity.monitor.ready();
    expect(records(a.store.db)).toHaveLength(4);
    expect(logLines(dataDir)).toHaveLength(4);
  });

  it('follows the settings: a disabled host records nothing, enabling it starts a fresh baseline', async () => {
    const a = await start();
    const watched = makeTempDir('vigil-watched-');
    const hostId = await monitorFolders(a, [watched]);
    await a.settings.update((draft) => {
      draft.hosts[0]!.isEnabled = false;
    });
    await a.activity.monitor.ready();
    expect(a.activity.status.host(hostId)?.status.summary).toBe('Monitoring is disabled');
    fs.writeFileSync(path.join(watched, 'while-disabled.txt'), 'x');
    await new Promise((resolve) => setTimeout(resolve, 400));
    await a.settings.update((draft) => {
      draft.hosts[0]!.isEnabled = true;
    });
    await a.activity.monitor.ready();
    fs.writeFileSync(path.join(watched, 'after.txt'), 'x');
    await waitFor(
      () => records(a.store.db).length,
      (n) => n >= 1,
    );
    await settled(a);
    expect(actions(a.store.db)).toEqual([`Added ${path.join(watched, 'after.txt')}`]);
    const host = a.activity.status.host(hostId)!;
    expect(host.status.type).toBe('OK');
    expect(host.stats.receivedCount).toBe(1);
    expect(host.statusHistory.map((s) => s.summary)).toContain('Monitoring is disabled');
  });

  it('warns in the host status when an include folder does not exist, and starts watching once it does', async () => {
    const a = await start();
    const missing = path.join(makeTempDir(), 'not-yet');
    const hostId = await monitorFolders(a, [missing]);
    const status = a.activity.status.host(hostId)!.status;
    expect(status.type).toBe('Warning');
    expect(status.details).toContain(`folder ${missing} does not exist`);
    fs.mkdirSync(missing);
    await waitFor(
      () => a.activity.status.host(hostId)!.status.type,
      (t) => t === 'OK',
      10_000,
      'status OK',
    );
    fs.writeFileSync(path.join(missing, 'now.txt'), 'x');
    await waitFor(
      () => actions(a.store.db),
      (list) => list.includes(`Added ${path.join(missing, 'now.txt')}`),
    );
  });
});
