/**
 * Who did it, end to end (docs/attribution.md): a real agent, as root with the fanotify addon,
 * watches a temporary folder while two throwaway accounts (useradd, removed afterwards) act on
 * it through `runuser`. Each record names the account and the program; the log files carry the
 * uid and the program; a thousand short-lived `touch` processes are all attributed; reads are
 * recorded once per process and file; the host resource says `attribution` `process`.
 */
import { checkoutHiddenFromOthers } from '../helpers/other-accounts.js';
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { TestAgent } from '../helpers/test-agent.js';
import { canAttribute } from '../../agent/monitor/fanotify/can-attribute.js';
import { logLines, monitorFolders, records, TEST_TIMINGS, waitFor, type RecordRow } from '../helpers/activity.js';
import type { HostView } from '../../shared/console-api.js';
import { startAgentProcess, type AgentProcess } from '../helpers/agent-process.js';
import { call } from '../helpers/resource-client.js';
import { startTestAgent } from '../helpers/test-agent.js';
import { makeTempDir } from '../helpers/temp-dir.js';

const run = promisify(execFile);
const isRoot = process.getuid?.() === 0;
const probe = isRoot ? canAttribute() : { ok: false as const, reason: 'not root' };
const skipReason = probe.ok ? null : `fanotify attribution unavailable: ${probe.reason}`;

const suffix = `${process.pid % 100000}`;
const alice = `vgpa${suffix}`;
const bob = `vgpb${suffix}`;
const host = os.hostname();
const program = (name: string): string => fs.realpathSync(name);

function detail(row: RecordRow, name: string): string | undefined {
  const list = JSON.parse(row.details ?? '[]') as Array<{ PropertyName: string; Message?: string }>;
  return list.find((d) => d.PropertyName === name)?.Message;
}

describe('attributed file activity (root, real agent)', () => {
  let agent: TestAgent;
  let folder = '';
  let hostId = '';
  const uid: Record<string, number> = {};
  const as = (user: string, ...command: string[]) => run('runuser', ['-u', user, '--', ...command], { cwd: folder });
  const at = (...parts: string[]) => path.join(folder, ...parts);
  const rows = () => records(agent.store.db);
  const recordOf = (action: string, what: string) => rows().find((r) => r.action === action && r.what === what);
  const waitForRecord = (action: string, what: string) =>
    waitFor(
      () => recordOf(action, what),
      (r) => r !== undefined,
      20_000,
      `${action} ${what}`,
    ) as Promise<RecordRow>;

  beforeAll(async () => {
    if (skipReason) return;
    for (const user of [alice, bob]) {
      spawnSync('userdel', [user]); // left over by a run that was killed
      execFileSync('useradd', ['-M', '-s', '/usr/sbin/nologin', user]);
      uid[user] = Number(execFileSync('id', ['-u', user], { encoding: 'utf8' }).trim());
    }
    folder = fs.mkdtempSync(path.join(os.tmpdir(), 'vigil-attributed-'));
    fs.chmodSync(folder, 0o777);
    agent = await startTestAgent({ activity: { ...TEST_TIMINGS, attribution: 'auto' } });
    hostId = await monitorFolders(agent, [folder]);
  }, 60_000);

  afterAll(async () => {
    await agent?.stop();
    if (folder) fs.rmSync(folder, { recursive: true, force: true });
    for (const user of [alice, bob]) if (uid[user] !== undefined) execFileSync('userdel', [user]);
  });

  beforeEach((ctx) => {
    if (skipReason) ctx.skip(skipReason);
  });

  it('names the account and program of each create, change, rename, move and delete, in records and log lines', async () => {
    await as(alice, 'sh', '-c', 'umask 0; touch report.txt');
    const added = await waitForRecord('Added', at('report.txt'));
    await as(bob, 'sh', '-c', 'echo more >> report.txt');
    const modified = await waitForRecord('Modified', at('report.txt'));
    await as(alice, 'mv', 'report.txt', 'final.txt');
    const renamed = await waitForRecord('Renamed', at('final.txt'));
    await as(bob, 'mkdir', '-m', '777', 'archive');
    await waitForRecord('Added', at('archive'));
    await as(alice, 'mv', 'final.txt', 'archive/kept.txt');
    const moved = await waitForRecord('Moved', at('archive', 'kept.txt'));
    await as(bob, 'rm', 'archive/kept.txt');
    const removed = await waitForRecord('Removed', at('archive', 'kept.txt'));

    const expected: Array<[RecordRow, string, string]> = [
      [added, alice, program('/usr/bin/touch')],
      [modified, bob, program('/bin/sh')],
      [renamed, alice, program('/usr/bin/mv')],
      [moved, alice, program('/usr/bin/mv')],
      [removed, bob, program('/usr/bin/rm')],
    ];
    for (const [row, user, exe] of expected) {
      expect({ who: row.who, process: detail(row, 'Process') }).toEqual({ who: `${host}\\${user}`, process: exe });
      expect(Number(detail(row, 'Process ID'))).toBeGreaterThan(0);
      expect(detail(row, 'Detection')).toBeUndefined();
    }
    expect(recordOf('Added', at('archive'))?.who).toBe(`${host}\\${bob}`);

    // Log columns: 3 User ID, 8 Process or IP, 9 User Name.
    const line = await waitFor(
      () => logLines(agent.dataDir).find((l) => l.split('\t')[3] === 'Del' && l.includes('kept.txt')),
      (l) => l !== undefined,
      15_000,
      'the Del log line',
    );
    const columns = line!.split('\t');
    expect([columns[2], columns[7], columns[8]]).toEqual([
      String(uid[bob]),
      program('/usr/bin/rm'),
      `${host}\\\\${bob}`,
    ]);
  });

  it('attributes every one of 1,000 short-lived touch processes to their account', async () => {
    await as(bob, 'mkdir', 'many'); // the test runs inside the agent's process: its own I/O is never reported
    await waitForRecord('Added', at('many'));
    await as(bob, 'sh', '-c', 'cd many && i=0; while [ $i -lt 1000 ]; do touch f$i; i=$((i+1)); done');
    const added = () => rows().filter((r) => r.action === 'Added' && r.what.startsWith(at('many') + path.sep));
    await waitFor(added, (list) => list.length >= 1000, 60_000, '1,000 Added records');
    const list = added();
    expect(new Set(list.map((r) => r.what)).size).toBe(1000);
    const byBob = list.filter((r) => r.who === `${host}\\${bob}`).length;
    expect(byBob / 1000).toBeGreaterThanOrEqual(0.999);
    expect(list.filter((r) => r.who !== `${host}\\${bob}` && r.who !== 'unknown')).toEqual([]);
  }, 120_000);

  it('with monitorReads, records one Read per process and file however often it reads', async () => {
    await as(alice, 'sh', '-c', 'umask 022; echo numbers > secret.txt');
    await waitForRecord('Added', at('secret.txt'));
    await agent.settings.update((draft) => {
      draft.hosts[0]!.monitorReads = true;
    });
    await agent.activity.monitor.ready();
    await as(alice, 'cat', 'secret.txt');
    await as(bob, 'sh', '-c', 'for i in 1 2 3 4 5; do read line < secret.txt; done');
    const reads = () => rows().filter((r) => r.action === 'Read' && r.what === at('secret.txt'));
    await waitFor(reads, (list) => list.length >= 2, 20_000, 'two Read records');
    await new Promise((resolve) => setTimeout(resolve, 1000)); // repeated reads would have arrived by now
    const list = reads().map((r) => [r.who, detail(r, 'Process')]);
    expect(list.sort()).toEqual(
      [
        [`${host}\\${alice}`, program('/usr/bin/cat')],
        [`${host}\\${bob}`, program('/bin/sh')],
      ].sort(),
    );
  });

  it('says attribution process on the host resource', async () => {
    const response = await call(agent, ['read'], 'GET', `/api/v1/hosts/${hostId}`);
    expect(response.status).toBe(200);
    const body = response.json as Record<string, unknown>;
    expect(body['attribution']).toBe('process');
    expect(body['attributionReason']).toBeUndefined();
  });
});

describe('without CAP_SYS_ADMIN (an agent run by an ordinary account)', () => {
  const carol = `vgpc${suffix}`;
  let created = false;
  let agent: AgentProcess | null = null;

  beforeAll(() => {
    if (skipReason) return;
    spawnSync('userdel', [carol]);
    execFileSync('useradd', ['-M', '-s', '/usr/sbin/nologin', carol]);
    created = true;
  });

  afterAll(async () => {
    await agent?.stop();
    if (created) execFileSync('userdel', [carol]);
  });

  beforeEach((ctx) => {
    if (skipReason) ctx.skip(skipReason);
  });

  it('uses the folder watcher, says attribution none with the reason, and still records', async (ctx) => {
    const hidden = checkoutHiddenFromOthers();
    if (hidden) ctx.skip(`another account cannot reach this checkout: ${hidden} is owner-only`);
    const owned = (prefix: string): string => {
      const dir = makeTempDir(prefix);
      execFileSync('chown', [carol, dir]);
      return dir;
    };
    const dataDir = owned('vigil-unprivileged-data-');
    const watched = owned('vigil-unprivileged-watched-');
    agent = await startAgentProcess({ dataDir, runAs: carol, env: { HOME: owned('vigil-unprivileged-home-') } });
    const hosts = JSON.parse((await agent.console({ path: '/api/hosts' })).text) as HostView[];
    const added = await agent.console({
      method: 'POST',
      path: `/api/hosts/${hosts[0]!.id}/folders`,
      body: { path: watched },
    });
    expect(added.status).toBe(201);
    const host = JSON.parse(added.text) as HostView;
    expect(host.attribution).toBe('none');
    expect(host.attributionReason).toMatch(/CAP_SYS_ADMIN|capab|permission|not permitted/i);

    fs.writeFileSync(path.join(watched, 'plain.txt'), 'still recorded\n');
    const line = await waitFor(
      () => logLines(dataDir).find((l) => l.includes(path.join(watched, 'plain.txt'))),
      (l) => l !== undefined,
      20_000,
      'the log line of plain.txt',
    );
    expect(line!.split('\t')[8]).toBe(`${os.hostname()}\\\\${carol}`); // Who, its backslash escaped (TSV)
    fs.rmSync(watched, { recursive: true, force: true });
  }, 60_000);
});
