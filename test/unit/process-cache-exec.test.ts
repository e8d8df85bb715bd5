/**
 * The process cache's executable for a process gone before its events are handled
 * (native/src/process_cache.cc, docs/attribution.md "Short-lived processes"). The fanotify
 * reader notes a buffer's FAN_OPEN_EXEC events, then drains the process events socket; when the
 * socket still holds the process's fork, exec and exit at that moment (it ran between the
 * reader's last drain and its read), the fork must not discard the executable just noted.
 * Runs the cache against the kernel's real process events (root: CAP_NET_ADMIN).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import { buildNativeDriver } from '../helpers/native-driver.js';

it('names the program of a process that forked, executed and exited before its events were read', (ctx) => {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) ctx.skip('needs root on Linux (process events)');
  if (spawnSync('g++', ['--version']).status !== 0) ctx.skip('no C++ compiler');
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'vigil-process-cache-'));
  try {
    const built = buildNativeDriver(scratch, 'process-cache-driver', 'src', [
      'tools/process_cache_driver.cc',
      'src/process_cache.cc',
    ]);
    expect(built.stderr).toBe('');
    expect(built.status).toBe(0);
    const run = spawnSync(built.driver, ['/usr/bin/true'], { encoding: 'utf8', timeout: 30_000 });
    if (run.status === 2) ctx.skip(`no process events here: ${run.stderr.trim()}`);
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ known: true, exe: '/usr/bin/true' });
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
});
