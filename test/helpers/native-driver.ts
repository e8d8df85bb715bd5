/**
 * Native test drivers run under valgrind (docs/attribution.md, docs/integrity.md): a small C++
 * program built from the addon's pure sources, warning-free, with debug information.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestContext } from 'vitest';
import { REPO_ROOT } from './cli.js';

/** Why the valgrind tests cannot run here, or null. */
export function valgrindMissing(): string | null {
  if (spawnSync('valgrind', ['--version']).status !== 0) return 'valgrind not installed';
  if (spawnSync('g++', ['--version']).status !== 0) return 'no C++ compiler';
  return null;
}

/**
 * Runs `work` in a scratch folder named from `prefix`, removed after; skips the test when
 * valgrind or the compiler is missing.
 */
export function inValgrindScratch(ctx: TestContext, prefix: string, work: (scratch: string) => void): void {
  const missing = valgrindMissing();
  if (missing) ctx.skip(missing);
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  try {
    work(scratch);
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * Compiles `sources` (paths under native/) with `-Wall -Wextra -Werror` into `dir/name`, the
 * headers found in `include` (under native/), with `extra` arguments after the sources
 * (libraries, objects, defines, other header folders). Returns the driver's path and the
 * compiler's status and messages.
 */
export function buildNativeDriver(
  dir: string,
  name: string,
  include: string,
  sources: string[],
  extra: string[] = [],
): { driver: string; status: number | null; stderr: string } {
  const native = path.join(REPO_ROOT, 'native');
  const driver = path.join(dir, name);
  const built = spawnSync(
    'g++',
    [
      '-std=c++17',
      '-Wall',
      '-Wextra',
      '-Werror',
      '-g',
      '-O1',
      `-I${path.join(native, include)}`,
      ...sources.map((source) => path.join(native, source)),
      ...extra,
      '-o',
      driver,
    ],
    { encoding: 'utf8' },
  );
  return { driver, status: built.status, stderr: built.stderr };
}

/** Runs `driver` under valgrind's memcheck: any memory error or leak makes its status non-zero. */
export function memcheck(
  driver: string,
  args: string[] = [],
): { status: number | null; stdout: string; stderr: string } {
  const run = spawnSync('valgrind', ['-q', '--error-exitcode=9', '--leak-check=full', driver, ...args], {
    encoding: 'utf8',
    timeout: 120_000,
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}
