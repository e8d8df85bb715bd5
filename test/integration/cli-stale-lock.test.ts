/**
 * A `vigil` command checks that the console agent.lock names is this data dir's agent before it
 * sends it anything: a dead agent's lock, its pid reused by a live process and its port taken by
 * another program, gets that program no token and no password (docs/security.md, F8). And of two
 * agents started at the same instant on one data dir, one runs.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runVigil, spawnAgentOnFreePorts, spawnVigil, waitForReady } from '../helpers/cli.js';
import { makeTempDir } from '../helpers/temp-dir.js';

interface Seen {
  url: string;
  authorization: string | undefined;
  body: string;
}

const STALE_TOKEN = 'vgc_StaleTokenOfTheDeadAgent0123456789abcdefghij';
const PASSWORD = 'Corp-S3cret-2027!';
const started: Array<{ stop(): void }> = [];
afterEach(() => {
  for (const s of started.splice(0)) s.stop();
});

/** A plain HTTP server that records every request and answers like a console would, with `proof`. */
async function fakeConsole(proof: (url: URL) => unknown): Promise<{ port: number; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      seen.push({ url: req.url ?? '', authorization: req.headers.authorization, body });
      const url = new URL(req.url ?? '/', 'http://x');
      res.setHeader('Content-Type', 'application/json');
      res.end(
        JSON.stringify(url.pathname === '/api/identity-proof' ? proof(url) : { name: 'newuser', roles: ['reader'] }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  started.push({ stop: () => server.close() });
  return { port: (server.address() as AddressInfo).port, seen };
}

/** A data dir as a killed agent leaves it, with the lock's pid now a live process (`sleep`). */
function staleDataDir(consolePort: number): string {
  const dataDir = path.join(makeTempDir(), 'data');
  fs.mkdirSync(path.join(dataDir, 'secrets'), { recursive: true, mode: 0o700 });
  fs.writeFileSync(path.join(dataDir, 'secrets', 'console-token'), STALE_TOKEN + '\n', { mode: 0o600 });
  const sleeper: ChildProcess = spawn('sleep', ['300'], { stdio: 'ignore' });
  started.push({ stop: () => sleeper.kill() });
  const lock = {
    pid: sleeper.pid,
    consoleUrl: `http://127.0.0.1:${consolePort}/`,
    startedAt: new Date().toISOString(),
    holder: 'agent',
  };
  fs.writeFileSync(path.join(dataDir, 'agent.lock'), JSON.stringify(lock) + '\n', { mode: 0o600 });
  return dataDir;
}

const addUser = (dataDir: string) =>
  runVigil(['user', 'add', '--name', 'newuser', '--role', 'reader', '--password-stdin', '--data-dir', dataDir], {
    stdin: PASSWORD + '\n',
  });

describe.runIf(process.platform !== 'win32')('a stale agent.lock', () => {
  for (const [what, proof] of [
    ['answers a console-like reply without a proof', () => ({ ok: true })],
    ['answers a made-up proof', () => ({ proof: 'A'.repeat(43) })],
  ] as const) {
    it(`the program on the dead console's port ${what}: it receives no token and no password, and the command refuses`, async () => {
      const fake = await fakeConsole(proof);
      const dataDir = staleDataDir(fake.port);
      const result = await addUser(dataDir);
      expect(result.code).not.toBe(0);
      expect(result.stderr).toMatch(/could not prove it is the agent of this data directory/);
      expect(result.stderr).toMatch(/nothing was sent to it/);
      expect(result.stdout).toBe('');
      const everything = JSON.stringify(fake.seen);
      expect(everything).not.toContain(STALE_TOKEN);
      expect(everything).not.toContain(PASSWORD);
      expect(fake.seen.every((s) => s.url.startsWith('/api/identity-proof?') && s.authorization === undefined)).toBe(
        true,
      );
    });
  }

  it('with the real agent on the lock, the command goes through (the console proves itself)', async () => {
    const dataDir = path.join(makeTempDir(), 'data');
    const agent = spawnAgentOnFreePorts(dataDir);
    started.push({ stop: () => agent.kill('SIGKILL') });
    await waitForReady(agent);
    const result = await addUser(dataDir);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ name: 'newuser', roles: ['reader'] });
  });
});

describe.runIf(process.platform !== 'win32')('two agents started together on one data dir', () => {
  it('one runs and the other stops with "already using the data directory"', async () => {
    const dataDir = path.join(makeTempDir(), 'data');
    fs.mkdirSync(dataDir, { mode: 0o700 });
    const args = ['agent', '--data-dir', dataDir, '--api-port', '0', '--audit-port', '0', '--console-port', '0'];
    const agents = [spawnVigil(args), spawnVigil(args)];
    for (const agent of agents) started.push({ stop: () => agent.kill('SIGKILL') });
    const outcomes = await Promise.all(
      agents.map((agent) =>
        waitForReady(agent, 20_000).then(
          () => 'ready',
          (error: Error) => error.message,
        ),
      ),
    );
    expect(outcomes.filter((o) => o === 'ready')).toHaveLength(1);
    expect(outcomes.find((o) => o !== 'ready')).toMatch(
      /another Vigil agent \(pid \d+\) is already using the data directory/,
    );
  });
});
