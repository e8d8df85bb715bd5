/**
 * kill -9 of a real agent process while it writes a burst of file activity to a log file
 * (docs/integrity.md, "Log files"): after the restart the log file and its sidecar are cut back
 * to the same committed batch and go on from there, so `vigil verify --logs` finds nothing wrong
 * (no false alarm), while the restarted agent writes and after it stopped (signed at shutdown).
 */
import { execFile, type ChildProcessWithoutNullStreams } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { afterEach, expect, it } from 'vitest';
import { localHostType } from '../../agent/config/monitoring-schema.js';
import { collect, REPO_ROOT, runVigil, spawnVigil, waitForReady } from '../helpers/cli.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { waitFor } from '../helpers/activity.js';
import { items, logRig } from './log-rig.js';

const WRITER = path.join(REPO_ROOT, 'test', 'fixtures', 'burst-writer.mjs');
const FREE_PORTS = ['--api-port', '0', '--audit-port', '0', '--console-port', '0'];
// Long enough that the kill lands while batches are still being written, on a quiet machine too
// (6,000 were all committed before the kill there).
const FILES = 30_000;
const FOLDERS = 20;

const children: ChildProcessWithoutNullStreams[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

async function startAgent(dataDir: string): Promise<ChildProcessWithoutNullStreams> {
  const child = spawnVigil(['agent', '--data-dir', dataDir, ...FREE_PORTS]);
  children.push(child);
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  await waitForReady(child, 30_000);
  await waitFor(() => stderr.includes('monitoring folders'), Boolean, 30_000, 'the watcher to start');
  return child;
}

function fileRecords(dbFile: string): number {
  const db = new Database(dbFile, { readonly: true, fileMustExist: true });
  try {
    return (
      db.prepare("SELECT count(*) AS n FROM activity_records WHERE data_source = 'File System'").get() as { n: number }
    ).n;
  } finally {
    db.close();
  }
}

async function verifyLogs(dataDir: string): Promise<{ ok: boolean; problems: unknown[] }> {
  const run = await runVigil(['verify', '--data-dir', dataDir, '--logs', path.join(dataDir, 'logs')], {
    timeoutMs: 60_000,
  });
  expect(run.code, run.stdout + run.stderr).toBe(0);
  return JSON.parse(run.stdout) as { ok: boolean; problems: unknown[] };
}

it('log files and their sidecars continue after kill -9 during writes and verify without a false alarm', async () => {
  const dataDir = makeTempDir();
  const watched = makeTempDir('vigil-log-kill-');
  fs.writeFileSync(
    path.join(dataDir, 'settings.json'),
    JSON.stringify({
      hosts: [{ id: 'host-1', host: 'kill-test', type: localHostType(), includePaths: [watched] }],
      outputs: [{ id: 'log-1', hostId: 'host-1', type: 'LogFile', logFile: { format: 'Tsv', headerRow: true } }],
    }),
  );
  const dbFile = path.join(dataDir, 'audit.db');

  const first = await startAgent(dataDir);
  const exited = collect(first, 120_000);
  const writer = promisify(execFile)(process.execPath, [WRITER, watched, String(FILES), String(FOLDERS)]);
  await waitFor(
    () => fileRecords(dbFile),
    (n) => n >= 800,
    60_000,
    'records before the kill',
  );
  first.kill('SIGKILL');
  expect((await exited).signal).toBe('SIGKILL');
  expect(fileRecords(dbFile)).toBeLessThan(FILES + FOLDERS); // killed mid-burst
  await writer;

  const second = await startAgent(dataDir);
  await waitFor(
    () => fileRecords(dbFile),
    (n) => n >= FILES + FOLDERS,
    60_000,
    'every file recorded',
  );
  // Checked while the restarted agent runs (it may still write), then after its shutdown.
  expect((await verifyLogs(dataDir)).problems).toEqual([]);
  second.kill('SIGTERM');
  await new Promise((resolve) => second.once('close', resolve));
  const logs = path.join(dataDir, 'logs');
  const sidecars = fs.readdirSync(logs).filter((name) => name.endsWith('.sig'));
  expect(sidecars.length).toBeGreaterThan(0);
  // The shutdown signed the whole file.
  const last = fs.readFileSync(path.join(logs, sidecars[0]!), 'utf8').trimEnd().split('\n').at(-1)!;
  expect(JSON.parse(last)).toHaveProperty('signature');
  expect(await verifyLogs(dataDir)).toMatchObject({ ok: true, problems: [] });
}, 180_000);

it('cuts the sidecar back with its file when a batch never committed (the process died before COMMIT)', async () => {
  const rig = await logRig();
  try {
    const output = rig.output();
    rig.commit(output, items(10));
    // Lines and sidecar entry written, then the process dies: no rollback runs, and half of
    // the next sidecar entry is on disk too.
    expect(() =>
      rig.store.transaction(() => {
        output.write(items(5));
        throw new Error('killed');
      }),
    ).toThrow('killed');
    const file = path.join(rig.dir, 'desk-01_Log_20260310.tsv');
    fs.appendFileSync(`${file}.sig`, '{"line":99,"off');
    output.close();

    const restarted = rig.output();
    rig.commit(restarted, items(7));
    await restarted.stop();
    const pem = path.join(rig.root, 'public.pem');
    fs.writeFileSync(pem, rig.key.publicKeyPem);
    const run = await runVigil(['verify', '--logs', rig.dir, '--public-key', pem]);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({
      ok: true,
      verified: [{ file: 'desk-01_Log_20260310.tsv', from: 1, to: 18 }],
      problems: [],
    });
  } finally {
    rig.close();
  }
});
