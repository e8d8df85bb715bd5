/**
 * Browser tests run against renderer/dist, which `npm run build` (and `npm ci`) produce. When a
 * source of the web app is newer than the build, build it again first, so a test never checks
 * an old console.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './cli.js';

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    newest = Math.max(newest, fs.statSync(path.join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
}

/** Test files run in parallel workers: one builds while the others wait for it. */
function withBuildLock(work: () => void): void {
  const lock = path.join(REPO_ROOT, 'renderer', '.build-lock');
  const deadline = Date.now() + 120_000;
  for (;;) {
    try {
      fs.mkdirSync(lock);
      break;
    } catch {
      if (Date.now() > deadline) throw new Error(`${lock} held for two minutes; remove it if no build runs`);
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
    }
  }
  try {
    work();
  } finally {
    fs.rmSync(lock, { recursive: true, force: true });
  }
}

export function ensureRendererBuilt(): void {
  withBuildLock(buildIfStale);
}

function buildIfStale(): void {
  const built = path.join(REPO_ROOT, 'renderer', 'dist', 'index.html');
  const builtAt = fs.statSync(built, { throwIfNoEntry: false })?.mtimeMs ?? 0;
  const sources = Math.max(
    newestMtime(path.join(REPO_ROOT, 'renderer', 'src')),
    newestMtime(path.join(REPO_ROOT, 'shared')),
    fs.statSync(path.join(REPO_ROOT, 'renderer', 'index.html')).mtimeMs,
  );
  if (builtAt >= sources) return;
  execFileSync(
    process.execPath,
    [
      path.join(REPO_ROOT, 'node_modules', 'vite', 'bin', 'vite.js'),
      'build',
      '--config',
      'renderer/vite.config.ts',
      '--logLevel',
      'warn',
    ],
    { cwd: REPO_ROOT, stdio: 'inherit' },
  );
}
