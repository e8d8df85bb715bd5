/**
 * Memory of the attribution process cache (docs/benchmarks.md, "Actor attribution";
 * native/src/process_cache.h): while a fanotify watch runs, a shell starts 10,000 short
 * processes (`/bin/true`, one after another); the cache's size and this process's resident
 * memory are read before, at the peak and once the grace period has passed. Limit: after the
 * grace period the cache is back within 100 entries of where it started (exited processes are
 * dropped), whatever the number of processes started. Root, Linux, the addon built.
 *
 *   npx tsx bench/attribution-process-cache.ts       (VIGIL_BENCH_PROCESSES=10000)
 *   VIGIL_BENCH_GRACE_MS=600000 keeps all of them: the memory of a cache of 10,000 processes
 *   (`node --expose-gc --import tsx bench/attribution-process-cache.ts` collects garbage before each reading)
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { canAttribute } from '../agent/monitor/fanotify/can-attribute.js';
import { FanotifyWatch } from '../agent/monitor/fanotify/fanotify-watch.js';
import { machineLoad, rssKiBOf, sleep } from './attribution-workload.js';

const run = promisify(execFile);
const PROCESSES = Number(process.env['VIGIL_BENCH_PROCESSES'] ?? 10_000);
/** The agent's is 10 s (fanotify-watch.ts); a longer one keeps every process started in the cache. */
const GRACE_MS = Number(process.env['VIGIL_BENCH_GRACE_MS'] ?? 10_000);
const SETTLED_LIMIT = 100;

async function main(): Promise<void> {
  const probe = canAttribute();
  if (!probe.ok) {
    console.log(JSON.stringify({ skipped: probe.reason }));
    return;
  }
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'vigil-attr-cache-'));
  const watch = new FanotifyWatch({ folders: [folder], graceMs: GRACE_MS, onEvents: () => undefined });
  try {
    watch.start();
    await sleep(1500); // the /proc scan, and the first statistics
    global.gc?.();
    const before = { cached: watch.stats()!.cachedProcesses, rssKiB: rssKiBOf(process.pid) };
    let peak = { ...before };
    const sample = setInterval(() => {
      const now = { cached: watch.stats()!.cachedProcesses, rssKiB: rssKiBOf(process.pid) };
      peak = { cached: Math.max(peak.cached, now.cached), rssKiB: Math.max(peak.rssKiB, now.rssKiB) };
    }, 100);
    const started = Date.now();
    await run('sh', ['-c', `i=0; while [ $i -lt ${PROCESSES} ]; do /bin/true; i=$((i + 1)); done`]);
    const spawnMs = Date.now() - started;
    await sleep(1200); // the reader's statistics are refreshed at least once a second
    clearInterval(sample);
    global.gc?.();
    const atEnd = { cached: watch.stats()!.cachedProcesses, rssKiB: rssKiBOf(process.pid) };
    if (GRACE_MS <= 60_000) await sleep(GRACE_MS + 2500);
    global.gc?.();
    const afterGrace = { cached: watch.stats()!.cachedProcesses, rssKiB: rssKiBOf(process.pid) };
    const stats = watch.stats()!;
    const result = {
      processes: PROCESSES,
      spawnMs,
      graceMs: GRACE_MS,
      machine: machineLoad(),
      before,
      peak,
      atEnd,
      afterGrace,
      rssGrowthKiB: { peak: peak.rssKiB - before.rssKiB, afterGrace: afterGrace.rssKiB - before.rssKiB },
      bytesPerCachedProcess: Math.round(
        ((peak.rssKiB - before.rssKiB) * 1024) / Math.max(1, peak.cached - before.cached),
      ),
      bounded: GRACE_MS <= 60_000 ? afterGrace.cached <= before.cached + SETTLED_LIMIT : null,
      connectorOverruns: stats.connectorOverruns,
      processEvents: stats.processEvents,
    };
    console.log(JSON.stringify(result, null, 2));
  } finally {
    watch.stop();
    fs.rmSync(folder, { recursive: true, force: true });
  }
}

await main();
