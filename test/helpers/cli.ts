/**
 * Runs the `vigil` command as a child process, the way an operator or a script runs it: the
 * package's bin launcher over the compiled dist/ (`npm test` builds first). Running the
 * sources through tsx's loader was tried and dropped: its signal relay made SIGINT kill the
 * child before the agent's own handler ran.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { onTestFinished } from 'vitest';
import { makeTempDir } from './temp-dir.js';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const ENTRY = path.join(REPO_ROOT, 'bin', 'vigil.js');

/**
 * HOME points at an empty temporary folder unless the test sets it: a first run's default host
 * watches the user folders under HOME, and tests never watch the real home.
 */
export function spawnVigil(args: string[], env: NodeJS.ProcessEnv = {}): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, [ENTRY, ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, VIGIL_LOG_LEVEL: 'info', HOME: emptyHome(), ...env },
  });
}

/** The agent's three listeners on ports the system picks. */
export const FREE_PORTS = ['--api-port', '0', '--audit-port', '0', '--console-port', '0'];

/**
 * `vigil agent` on `dataDir` with its listeners on free ports. Started inside a test, it is
 * killed when the test ends, however it ends: a test stopped by its timeout never reaches its own
 * `finally`, and the agent would run on after the suite.
 */
export function spawnAgentOnFreePorts(dataDir: string, env: NodeJS.ProcessEnv = {}): ChildProcessWithoutNullStreams {
  const child = spawnVigil(['agent', '--data-dir', dataDir, ...FREE_PORTS], env);
  try {
    onTestFinished(() => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    });
  } catch {
    // Started in a hook, not a test: the file's afterAll stops it.
  }
  return child;
}

let home: string | null = null;
function emptyHome(): string {
  home ??= makeTempDir('vigil-home-');
  return home;
}

export interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs to completion (bounded by `timeoutMs`, after which the child is killed). */
export function runVigil(
  args: string[],
  options: { env?: NodeJS.ProcessEnv; stdin?: string; timeoutMs?: number } = {},
): Promise<Finished> {
  const child = spawnVigil(args, options.env);
  return collect(child, options.timeoutMs ?? 20_000, options.stdin);
}

export function collect(child: ChildProcessWithoutNullStreams, timeoutMs: number, stdin?: string): Promise<Finished> {
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  if (stdin !== undefined) child.stdin.end(stdin);
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  return new Promise((resolve) => {
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** Resolves with the parsed ready line once the agent prints it; rejects if the child exits first. */
export function waitForReady(
  child: ChildProcessWithoutNullStreams,
  timeoutMs = 20_000,
): Promise<Record<string, string>> {
  return new Promise((resolve, reject) => {
    let buffered = '';
    let stderr = '';
    const timer = setTimeout(
      () => reject(new Error(`no ready line within ${timeoutMs} ms; stderr:\n${stderr}`)),
      timeoutMs,
    );
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const newline = buffered.indexOf('\n');
      if (newline >= 0) {
        clearTimeout(timer);
        resolve(JSON.parse(buffered.slice(0, newline)) as Record<string, string>);
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`agent exited with ${code} before the ready line; stderr:\n${stderr}`));
    });
  });
}
