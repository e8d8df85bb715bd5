/**
 * Every create and delete of a burst recorded once, each with its actor (docs/attribution.md,
 * "Overhead and completeness"): a real agent, as root with the fanotify addon, watches a
 * temporary folder while a throwaway account (useradd, removed afterwards) extracts a tar
 * archive of 3 folders × 1,000 files into it and deletes the tree at once (`rm -rf`), as one
 * shell command. The reader is then behind the workload: folders are gone before their files'
 * events are read, and a folder is created while its files' events are still on their way.
 *
 * In the parallel suite, where other test files start hundreds of processes and rename and
 * delete folders in /tmp on the same filesystem, one run recorded 2,262 of 3,003 removals
 * without an actor: a folder renamed out of a folder already gone made the reader forget every
 * directory path it knew, so the files of the tree deleted meanwhile had no path
 * (docs/attribution.md, "Known limits"). Should it fail again, the message carries the
 * counters that say where actors were lost.
 */
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { canAttribute } from '../../agent/monitor/fanotify/can-attribute.js';
import { monitorFolders, records, waitFor, type RecordRow } from '../helpers/activity.js';
import { startTestAgent, type TestAgent } from '../helpers/test-agent.js';

const run = promisify(execFile);
const isRoot = process.getuid?.() === 0;
const probe = isRoot ? canAttribute() : { ok: false as const, reason: 'not root' };
const skipReason = probe.ok ? null : `fanotify attribution unavailable: ${probe.reason}`;

const user = `vgcm${process.pid % 100000}`;
const FOLDERS = 3;
const PER_FOLDER = 1000;

describe('a burst of creates and deletes (root, real agent)', () => {
  let agent: TestAgent;
  let scratch = '';
  let watched = '';
  let archive = '';
  let created = false;
  let hostId = '';
  let attempt = 0;

  beforeAll(async () => {
    if (skipReason) return;
    spawnSync('userdel', [user]); // left over by a run that was killed
    execFileSync('useradd', ['-M', '-s', '/usr/sbin/nologin', user]);
    created = true;
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'vigil-completeness-'));
    fs.chmodSync(scratch, 0o755);
    const source = path.join(scratch, 'source');
    for (let d = 0; d < FOLDERS; d++) {
      fs.mkdirSync(path.join(source, `d${d}`), { recursive: true });
      for (let f = 0; f < PER_FOLDER; f++) fs.writeFileSync(path.join(source, `d${d}`, `f${f}.txt`), `${d}/${f}\n`);
    }
    archive = path.join(scratch, 'files.tar');
    execFileSync('tar', ['-cf', archive, '-C', source, '.']);
    fs.chmodSync(archive, 0o644);
    fs.rmSync(source, { recursive: true });
    watched = path.join(scratch, 'watched');
    fs.mkdirSync(watched, { mode: 0o777 });
    fs.chmodSync(watched, 0o777);
    agent = await startTestAgent({ activity: { attribution: 'auto' } });
    hostId = await monitorFolders(agent, [watched]);
  }, 60_000);

  afterAll(async () => {
    await agent?.stop();
    if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
    if (created) execFileSync('userdel', [user]);
  });

  beforeEach((ctx) => {
    if (skipReason) ctx.skip(skipReason);
  });

  it('records one Added and one Removed per file and folder of `tar -x && rm -rf`, each by the acting account', async () => {
    const tree = path.join(watched, `tree${++attempt}`); // a retry gets a tree of its own
    await run('runuser', [
      '-u',
      user,
      '--',
      'sh',
      '-c',
      'mkdir "$2" && tar -xf "$1" -C "$2" && rm -rf "$2"',
      'sh',
      archive,
      tree,
    ]);

    const expected: string[] = [tree];
    for (let d = 0; d < FOLDERS; d++) {
      expected.push(path.join(tree, `d${d}`));
      for (let f = 0; f < PER_FOLDER; f++) expected.push(path.join(tree, `d${d}`, `f${f}.txt`));
    }
    const under = (r: RecordRow) => r.what === tree || r.what.startsWith(tree + path.sep);
    const ofTree = () => records(agent.store.db).filter(under);
    const complete = (list: RecordRow[]) =>
      list.filter((r) => r.action === 'Added').length >= expected.length &&
      list.filter((r) => r.action === 'Removed').length >= expected.length;
    // Every record or, if some never come, the list as it stands once nothing moved for 10 s.
    let last = -1;
    let since = Date.now();
    await waitFor(
      ofTree,
      (list) => {
        if (list.length !== last) [last, since] = [list.length, Date.now()];
        return complete(list) || Date.now() - since > 10_000;
      },
      120_000,
      'the records of the tree',
    );
    await new Promise((resolve) => setTimeout(resolve, 1000)); // a duplicate would have arrived by now
    const list = ofTree();

    const paths = (action: string) =>
      list
        .filter((r) => r.action === action)
        .map((r) => r.what)
        .sort();
    const sorted = [...expected].sort();
    // Where actors were lost, should an assertion fail: overflows and full scans, events whose
    // process or path the reader could not resolve, process events the kernel dropped, removals
    // no event reported, folders that waited in vain for their entries' events.
    const counters = agent.activity.monitor.source(hostId)?.status().counters;
    const stats = agent.activity.status.hostStats(hostId);
    const diagnostics = `source counters ${JSON.stringify(counters)}; host stats ${JSON.stringify(stats)}`;
    const missing = (action: string) => {
      const seen = new Set(paths(action));
      return sorted.filter((p) => !seen.has(p)).length;
    };
    expect({ addedMissing: missing('Added'), removedMissing: missing('Removed') }, diagnostics).toEqual({
      addedMissing: 0,
      removedMissing: 0,
    });
    expect(paths('Added'), diagnostics).toEqual(sorted);
    expect(paths('Removed'), diagnostics).toEqual(sorted);
    expect(
      list.filter((r) => r.action !== 'Added' && r.action !== 'Removed').map((r) => `${r.action} ${r.what}`),
    ).toEqual([]);
    const who = `${os.hostname()}\\${user}`;
    const byOthers = list.filter((r) => r.who !== who);
    expect(
      {
        notByTheAccount: byOthers.length,
        sample: byOthers.slice(0, 3).map((r) => [r.action, r.what, r.who]),
      },
      diagnostics,
    ).toEqual({
      notByTheAccount: 0,
      sample: [],
    });
  }, 180_000);
});
