/**
 * Global setup of the load tests: flush what earlier work left for the disk to write before the
 * agent is measured. The rest of `npm test` leaves hundreds of megabytes of dirty pages behind;
 * while the kernel writes them back, every fsync and journal commit of the agent's SQLite
 * writes waits behind them, and L04's event-loop figure measured that backlog rather than the
 * agent (1.4 GB of dirty pages: 108–159 ms; after `sync`: 54–89 ms). The agent's own writes
 * during the test still go to the same disk.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';

const SETTLED_KB = 64 * 1024;

function pendingKb(): number | null {
  try {
    const info = fs.readFileSync('/proc/meminfo', 'utf8');
    const field = (name: string): number => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(info)?.[1] ?? 0);
    return field('Dirty') + field('Writeback');
  } catch {
    return null; // not Linux: nothing to wait for
  }
}

export default async function setup(): Promise<void> {
  const started = Date.now();
  execFileSync('sync');
  for (let kb = pendingKb(); kb !== null && kb > SETTLED_KB && Date.now() - started < 60_000; kb = pendingKb()) {
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  process.stderr.write(`load tests: disk flushed in ${Date.now() - started} ms\n`);
}
