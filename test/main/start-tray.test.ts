/**
 * `npm start` without Electron's binary (installs with ELECTRON_SKIP_BINARY_DOWNLOAD=1, as
 * here and in CI) must say so in one clear line and point to the headless agent.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/cli.js';
import { makeTempDir } from '../helpers/temp-dir.js';

const LAUNCHER = path.join(REPO_ROOT, 'bin', 'start-tray.js');

function electronBinaryPresent(): boolean {
  try {
    const binary: unknown = createRequire(import.meta.url)('electron');
    return typeof binary === 'string' && fs.existsSync(binary);
  } catch {
    return false;
  }
}

function expectOneClearLine(result: ReturnType<typeof spawnSync>): void {
  expect(result.status).toBe(1);
  const stderr = String(result.stderr);
  expect(stderr.endsWith('\n')).toBe(true);
  expect(stderr.trimEnd().split('\n')).toHaveLength(1);
  expect(stderr).toMatch(/^vigil: Electron is not installed on this machine/);
  expect(stderr).toContain('npm run agent');
  expect(stderr).not.toMatch(/\n\s+at /); // no stack trace
  expect(String(result.stdout)).toBe('');
}

describe('npm start without Electron', () => {
  it.skipIf(electronBinaryPresent())('in this checkout (electron installed types-only)', () => {
    expectOneClearLine(spawnSync(process.execPath, [LAUNCHER], { cwd: REPO_ROOT, timeout: 20_000 }));
  });

  it('in an install without the electron package at all', () => {
    const app = makeTempDir();
    fs.mkdirSync(path.join(app, 'bin'));
    fs.copyFileSync(LAUNCHER, path.join(app, 'bin', 'start-tray.js'));
    fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify({ type: 'module' }));
    expectOneClearLine(
      spawnSync(process.execPath, [path.join(app, 'bin', 'start-tray.js')], { cwd: app, timeout: 20_000 }),
    );
  });

  it('the script behind `npm start` is this launcher', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    expect(pkg.scripts['start']).toBe('node bin/start-tray.js');
  });
});
