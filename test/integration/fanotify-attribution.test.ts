/**
 * Actor attribution of file activity with fanotify (docs/attribution.md), as root against the
 * real kernel: two throwaway accounts (useradd, removed afterwards) act on a temporary folder
 * through `runuser`, and every event must name the account and program that acted, including
 * a thousand `touch` processes that exit at once. The agent's own writes give no event.
 */
import { checkoutHiddenFromOthers } from '../helpers/other-accounts.js';
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { canAttribute } from '../../agent/monitor/fanotify/can-attribute.js';
import { type AttributedEvent, FanotifyWatch } from '../../agent/monitor/fanotify/fanotify-watch.js';
import { REPO_ROOT } from '../helpers/cli.js';

const run = promisify(execFile);
const isRoot = process.getuid?.() === 0;
const probe = isRoot ? canAttribute() : { ok: false as const, reason: 'not root' };
const skipReason = probe.ok ? null : `fanotify attribution unavailable: ${probe.reason}`;

const suffix = `${process.pid % 100000}`;
const alice = `vgla${suffix}`;
const bob = `vglb${suffix}`;
const host = os.hostname();
const program = (name: string): string => fs.realpathSync(name);

describe('fanotify attribution (root, real kernel)', () => {
  let folder = '';
  let watch: FanotifyWatch | null = null;
  const events: AttributedEvent[] = [];
  const uid: Record<string, number> = {};

  const as = (user: string, ...command: string[]) => run('runuser', ['-u', user, '--', ...command], { cwd: folder });
  const inFolder = (...parts: string[]) => path.join(folder, ...parts);

  async function waitFor(what: string, predicate: () => boolean, timeoutMs = 20_000): Promise<void> {
    const end = Date.now() + timeoutMs;
    while (!predicate()) {
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  const find = (kind: AttributedEvent['kind'], file: string) =>
    events.findLast((e) => e.kind === kind && e.path === file);

  beforeAll(() => {
    if (skipReason) return;
    for (const user of [alice, bob]) {
      spawnSync('userdel', [user]); // left over by a run that was killed
      execFileSync('useradd', ['-M', '-s', '/usr/sbin/nologin', user]);
      uid[user] = Number(execFileSync('id', ['-u', user], { encoding: 'utf8' }).trim());
    }
    folder = fs.mkdtempSync(path.join(os.tmpdir(), 'vigil-fanotify-'));
    fs.chmodSync(folder, 0o777);
    watch = new FanotifyWatch({ folders: [folder], reads: true, onEvents: (batch) => events.push(...batch) });
    watch.start();
  });

  afterAll(() => {
    watch?.stop();
    if (folder) fs.rmSync(folder, { recursive: true, force: true });
    for (const user of [alice, bob]) {
      if (uid[user] !== undefined) execFileSync('userdel', [user]);
    }
  });

  beforeEach((ctx) => {
    if (skipReason) ctx.skip(skipReason);
  });

  it('names the account and the program of each create, write, rename, move and delete', async () => {
    await as(alice, 'touch', 'report.txt');
    await as(alice, 'chmod', '666', 'report.txt');
    await as(bob, 'sh', '-c', 'echo more >> report.txt');
    await as(alice, 'mv', 'report.txt', 'final.txt');
    await as(bob, 'mkdir', '-m', '777', 'archive');
    await as(alice, 'mv', 'final.txt', 'archive/kept.txt');
    await as(bob, 'rm', 'archive/kept.txt');
    await as(alice, 'rmdir', 'archive');
    await waitFor('the rmdir', () => events.some((e) => e.kind === 'delete' && e.isDir));

    const expectActor = (event: AttributedEvent | undefined, user: string, exe: string) => {
      expect(event).toBeDefined();
      expect(event).toMatchObject({ uid: uid[user], who: `${host}\\${user}`, exe: program(exe) });
      expect(event!.pid).toBeGreaterThan(0);
    };
    expectActor(find('create', inFolder('report.txt')), alice, '/usr/bin/touch');
    expectActor(find('modify', inFolder('report.txt')), bob, '/bin/sh');
    expectActor(find('closeWrite', inFolder('report.txt')), bob, '/bin/sh');
    const rename = find('rename', inFolder('final.txt'));
    expectActor(rename, alice, '/usr/bin/mv');
    expect(rename!.oldPath).toBe(inFolder('report.txt'));
    const created = find('create', inFolder('archive'));
    expectActor(created, bob, '/usr/bin/mkdir');
    expect(created!.isDir).toBe(true);
    const moved = find('rename', inFolder('archive', 'kept.txt'));
    expectActor(moved, alice, '/usr/bin/mv');
    expect(moved!.oldPath).toBe(inFolder('final.txt'));
    expectActor(find('delete', inFolder('archive', 'kept.txt')), bob, '/usr/bin/rm');
    expectActor(find('delete', inFolder('archive')), alice, '/usr/bin/rmdir');
  });

  it('keeps the login account of someone acting as another account (as after sudo or su)', async () => {
    // A login session of alice (pam_loginuid writes /proc/self/loginuid), then runuser to bob.
    await run('sh', ['-c', `echo ${uid[alice]} > /proc/self/loginuid && runuser -u ${bob} -- touch as-bob.txt`], {
      cwd: folder,
    });
    await waitFor('the create', () => find('create', inFolder('as-bob.txt')) !== undefined);
    expect(find('create', inFolder('as-bob.txt'))).toMatchObject({
      uid: uid[bob],
      who: `${host}\\${bob}`,
      loginUid: uid[alice],
      loginWho: `${host}\\${alice}`,
    });
  });

  it('reports a read with its reader', async () => {
    fs.writeFileSync(inFolder('readme.txt'), 'hello\n');
    fs.chmodSync(inFolder('readme.txt'), 0o644);
    await as(bob, 'cat', 'readme.txt');
    await waitFor('the read', () => find('read', inFolder('readme.txt')) !== undefined);
    expect(find('read', inFolder('readme.txt'))).toMatchObject({ uid: uid[bob], exe: program('/usr/bin/cat') });
  });

  it('attributes at least 99.9 % of 1,000 short-lived touch processes to their account, none to another', async () => {
    await as(alice, 'sh', '-c', 'mkdir burst && for i in $(seq 1000); do touch burst/t$i; done');
    const burst = () => events.filter((e) => e.kind === 'create' && path.dirname(e.path) === inFolder('burst'));
    await waitFor('1,000 creates', () => burst().length >= 1000, 120_000);
    const creates = burst();
    const attributed = creates.filter((e) => e.uid === uid[alice] && e.who === `${host}\\${alice}`);
    const misattributed = creates.filter((e) => e.uid !== null && e.uid !== uid[alice]);
    const withProgram = creates.filter((e) => e.exe === program('/usr/bin/touch'));
    console.info(
      `short-lived touch: ${attributed.length}/1000 attributed, ${withProgram.length}/1000 with /usr/bin/touch, stats ${JSON.stringify(watch!.stats())}`,
    );
    expect(new Set(creates.map((e) => e.path)).size).toBe(1000);
    expect(misattributed).toEqual([]);
    expect(attributed.length).toBeGreaterThanOrEqual(999);
    expect(withProgram.length).toBeGreaterThanOrEqual(999);
  }, 240_000);

  it('forgets exited processes after the grace period, however many started', async () => {
    const cached = () => short!.stats()!.cachedProcesses;
    const short = new FanotifyWatch({ folders: [folder], graceMs: 5000, onEvents: () => undefined });
    try {
      short.start();
      await new Promise((resolve) => setTimeout(resolve, 1500)); // the statistics are refreshed each second
      const before = cached();
      await run('sh', ['-c', 'i=0; while [ $i -lt 300 ]; do /bin/true; i=$((i+1)); done']);
      await waitFor('the exited processes in the cache', () => cached() >= before + 250, 5_000);
      await waitFor('the cache back to its size', () => cached() <= before + 50, 15_000);
    } finally {
      short.stop();
    }
  }, 30_000);

  it('names the deletes of a removed folder while a folder elsewhere moves out of a folder already gone', async () => {
    // The reader finds a folder renamed out of a folder deleted meanwhile (a build or a test
    // suite elsewhere on the filesystem): where it came from is unknown. The paths it knows of
    // the monitored folders stay known, so the files of a folder deleted in the same moment,
    // whose events come after, keep their paths. One node process acts, timed so that the
    // reader, woken by a first write, reads the rest in one go 20 ms later: by then the folders
    // are gone and only the paths it kept can name them.
    const elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), 'vigil-elsewhere-'));
    const rounds = 5;
    const script = `
      const fs = require('node:fs'), path = require('node:path');
      const [watched, elsewhere, rounds] = process.argv.slice(1);
      const pause = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
      for (let i = 0; i < Number(rounds); i++) {
        const inside = path.join(watched, 'gone' + i, 'd');
        fs.mkdirSync(inside, { recursive: true });
        for (let f = 0; f < 10; f++) fs.writeFileSync(path.join(inside, 'f' + f), 'x');
        pause(100);
        fs.writeFileSync(path.join(elsewhere, 'wake'), 'x');
        pause(2);
        const parent = path.join(elsewhere, 'p' + i);
        fs.mkdirSync(path.join(parent, 'a'), { recursive: true });
        fs.renameSync(path.join(parent, 'a'), path.join(parent, 'b'));
        fs.rmSync(parent, { recursive: true });
        fs.rmSync(path.join(watched, 'gone' + i), { recursive: true });
        pause(100);
      }`;
    try {
      await run(process.execPath, ['-e', script, folder, elsewhere, String(rounds)]);
      const deleted = (i: number) => [...Array(10).keys()].map((f) => inFolder(`gone${i}`, 'd', `f${f}`));
      const expected = [...Array(rounds).keys()].flatMap(deleted);
      await waitFor('the last folder delete', () => find('delete', inFolder(`gone${rounds - 1}`)) !== undefined);
      const seen = new Set(events.filter((e) => e.kind === 'delete').map((e) => e.path));
      expect(expected.filter((p) => !seen.has(p))).toEqual([]);
      expect(watch!.stats()!.movedFromUnknown).toBeGreaterThan(0); // the case above did happen
    } finally {
      fs.rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  it('tells an ordinary account why it cannot attribute', async (ctx) => {
    const hidden = checkoutHiddenFromOthers();
    if (hidden) ctx.skip(`another account cannot reach this checkout: ${hidden} is owner-only`);
    const probeModule = path.join(REPO_ROOT, 'dist', 'agent', 'monitor', 'fanotify', 'can-attribute.js');
    const { stdout } = await as(
      alice,
      process.execPath,
      '-e',
      `import(${JSON.stringify(probeModule)}).then((m) => console.log(JSON.stringify(m.canAttribute())))`,
    );
    expect(JSON.parse(stdout)).toEqual({ ok: false, reason: 'needs CAP_SYS_ADMIN: run the Vigil service' });
  });

  it("gives no event for the agent's own writes", async () => {
    fs.writeFileSync(inFolder('own.txt'), 'written by the agent itself');
    fs.renameSync(inFolder('own.txt'), inFolder('own-renamed.txt'));
    fs.rmSync(inFolder('own-renamed.txt'));
    await as(alice, 'touch', 'marker.txt'); // queued after the agent's own events
    await waitFor('the marker', () => find('create', inFolder('marker.txt')) !== undefined);
    expect(events.filter((e) => e.path.includes('own') || e.oldPath?.includes('own'))).toEqual([]);
    expect(events.every((e) => e.pid !== process.pid)).toBe(true);
  });
});
