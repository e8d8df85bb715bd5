/**
 * Watcher capture benchmark: the same burst of file creates, written by another
 * process, watched at once by a real `vigil agent` and by Debian's `inotifywait -m -r`
 * (inotify-tools). Reports both counts and the time from the end of the burst until the last
 * record is searchable in the audit store. Limit: Vigil captures at least as many as inotifywait.
 *
 *   npm run bench:pipeline      (needs `apt-get install -y inotify-tools`)
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { localHostType } from '../agent/config/monitoring-schema.js';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const WRITER = path.join(ROOT, 'test', 'fixtures', 'burst-writer.mjs');
const VIGIL = path.join(ROOT, 'bin', 'vigil.js');

interface Scenario {
  name: string;
  files: number;
  folders: number;
}

const SCENARIOS: Scenario[] = [
  { name: 'flat folder', files: 20_000, folders: 0 },
  { name: '200 brand-new subfolders', files: 20_000, folders: 200 },
  { name: 'flat folder', files: 100_000, folders: 0 },
];

function waitForText(
  child: ChildProcess,
  stream: 'stdout' | 'stderr',
  text: string,
  timeoutMs = 30_000,
): Promise<void> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(
      () => reject(new Error(`no "${text}" within ${timeoutMs} ms: ${seen.slice(-500)}`)),
      timeoutMs,
    );
    child[stream]!.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      if (seen.includes(text)) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
}

const stopped = (child: ChildProcess): Promise<void> =>
  new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });

async function run(scenario: Scenario) {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'vigil-watch-bench-'));
  const watched = path.join(base, 'watched');
  const dataDir = path.join(base, 'data');
  fs.mkdirSync(watched);
  fs.mkdirSync(dataDir);
  fs.writeFileSync(
    path.join(dataDir, 'settings.json'),
    JSON.stringify({
      hosts: [{ id: 'bench', name: 'bench', type: localHostType(), includePaths: [watched] }],
      outputs: [{ id: 'bench-log', hostId: 'bench', type: 'LogFile' }],
    }),
  );
  const agent = spawn(
    process.execPath,
    [VIGIL, 'agent', '--data-dir', dataDir, '--api-port', '0', '--audit-port', '0', '--console-port', '0'],
    {
      env: { ...process.env, HOME: base },
    },
  );
  await waitForText(agent, 'stderr', 'monitoring folders');
  const inotifyOut = path.join(base, 'inotifywait.txt');
  const out = fs.openSync(inotifyOut, 'w');
  const inotify = spawn('inotifywait', ['-m', '-r', '-e', 'create', '--format', '%e %w%f', watched], {
    stdio: ['ignore', out, 'pipe'],
  });
  await waitForText(inotify, 'stderr', 'Watches established');

  const started = Date.now();
  await promisify(execFile)(process.execPath, [WRITER, watched, String(scenario.files), String(scenario.folders)]);
  const burstEnd = Date.now();

  const db = new Database(path.join(dataDir, 'audit.db'), { readonly: true, fileMustExist: true });
  const count = db.prepare(
    "SELECT count(*) AS n FROM activity_records WHERE data_source = 'File System' AND action = 'Added' AND object_type = 'File'",
  );
  let last = -1;
  let lastChange = Date.now();
  let searchableAt = burstEnd;
  for (;;) {
    const n = (count.get() as { n: number }).n;
    if (n !== last) {
      last = n;
      lastChange = Date.now();
      searchableAt = lastChange;
    }
    if (n >= scenario.files || Date.now() - lastChange > 8000) break;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  await new Promise((resolve) => setTimeout(resolve, 1500)); // late arrivals, duplicates
  const vigil = (count.get() as { n: number }).n;
  const distinct = (
    db
      .prepare(
        "SELECT count(DISTINCT what) AS n FROM activity_records WHERE data_source = 'File System' AND action = 'Added' AND object_type = 'File'",
      )
      .get() as { n: number }
  ).n;
  db.close();
  await stopped(inotify);
  fs.closeSync(out);
  const inotifyFiles = fs
    .readFileSync(inotifyOut, 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('CREATE ') && !line.includes('ISDIR')).length;
  const overflow = fs.readFileSync(inotifyOut, 'utf8').includes('Q_OVERFLOW');
  await stopped(agent);
  fs.rmSync(base, { recursive: true, force: true });
  return {
    ...scenario,
    writerMs: burstEnd - started,
    inotifyFiles,
    overflow,
    vigil,
    distinct,
    searchableMs: searchableAt - burstEnd,
  };
}

const fmt = (n: number): string => n.toLocaleString('en-US');
const rows: string[] = [];
let ok = true;
for (const scenario of SCENARIOS) {
  const r = await run(scenario);
  const pass = r.vigil === r.files && r.distinct === r.files && r.vigil >= r.inotifyFiles;
  ok &&= pass;
  rows.push(
    `| ${fmt(r.files)} files, ${r.name} | ${fmt(r.writerMs)} ms | ${fmt(r.inotifyFiles)}${r.overflow ? ' (Q_OVERFLOW)' : ''} | ${fmt(r.vigil)} (${fmt(r.distinct)} distinct) | ${fmt(r.searchableMs)} ms | ${pass ? 'pass' : 'FAIL'} |`,
  );
}
console.log(`### Watcher capture (${new Date().toISOString().slice(0, 10)}, ${os.cpus().length} cores, Node ${process.version})

Files created by a separate process; \`vigil agent\` and \`inotifywait -m -r -e create\` watch the same folder.
"Searchable" is the time from the end of the burst until the last Added record is committed in the audit store.

| burst | writer time | inotifywait file creates | Vigil Added records | last record searchable after burst | result |
|---|---|---|---|---|---|
${rows.join('\n')}`);
if (!ok) process.exitCode = 1;
