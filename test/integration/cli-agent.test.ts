/** `vigil agent` as an operator runs it: ready line, clean stop, clear failures (README.md). */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { collect, FREE_PORTS, runVigil, spawnAgentOnFreePorts, spawnVigil, waitForReady } from '../helpers/cli.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { handshake } from '../helpers/tls-probe.js';

describe('vigil agent', () => {
  it('prints one ready line once every listener accepts, logs on stderr, and stops cleanly on SIGTERM', async () => {
    const dataDir = makeTempDir();
    const child = spawnAgentOnFreePorts(dataDir);
    const finished = collect(child, 30_000);
    const ready = await waitForReady(child);
    expect(Object.keys(ready)).toEqual(['event', 'apiUrl', 'auditUrl', 'consoleUrl', 'certificateSha256']);
    expect(ready['event']).toBe('ready');
    expect(ready['apiUrl']).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(ready['auditUrl']).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/vigil\/api\/v1$/);
    expect(ready['consoleUrl']).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    expect(ready['certificateSha256']).toMatch(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);

    // Every listener accepts now, and the served certificate is the one announced.
    for (const url of [ready['apiUrl']!, ready['auditUrl']!]) {
      const { port } = new URL(url);
      const result = await handshake({ host: '127.0.0.1', port: Number(port), rejectUnauthorized: false });
      expect(result.fingerprint256).toBe(ready['certificateSha256']);
    }
    // The console API wants the console token the agent wrote at start (shared/console-api.ts).
    const consoleToken = fs.readFileSync(path.join(dataDir, 'secrets', 'console-token'), 'utf8').trim();
    const consoleResponse = await fetch(new URL('api/status', ready['consoleUrl']), {
      headers: { Authorization: `Bearer ${consoleToken}` },
    });
    expect(consoleResponse.status).toBe(200);
    expect((await fetch(new URL('api/status', ready['consoleUrl']))).status).toBe(401);

    child.kill('SIGTERM');
    const result = await finished;
    expect(result.code).toBe(0);
    expect(result.stdout.trim().split('\n')).toHaveLength(1);
    const logLines = result.stderr.trim().split('\n');
    for (const line of logLines) expect(line).toMatch(/^\d{4}-\d\d-\d\dT\S+Z (DEBUG|INFO|WARN|ERROR) /);
    expect(result.stderr).toContain('agent stopped');
    expect(fs.existsSync(path.join(dataDir, 'agent.lock'))).toBe(false);
  });

  it('stops cleanly on SIGINT too', async () => {
    const child = spawnVigil(['agent', '--data-dir', makeTempDir(), ...FREE_PORTS]);
    const finished = collect(child, 30_000);
    await waitForReady(child);
    child.kill('SIGINT');
    const { code, signal, stderr } = await finished;
    expect({ code, signal }).toEqual({ code: 0, signal: null });
    expect(stderr).toContain('stopping signal=SIGINT');
  });

  it('takes its data dir from VIGIL_DATA_DIR when no flag is given', async () => {
    const dataDir = makeTempDir();
    const child = spawnVigil(['agent', ...FREE_PORTS], { VIGIL_DATA_DIR: dataDir });
    const finished = collect(child, 30_000);
    await waitForReady(child);
    expect(fs.existsSync(path.join(dataDir, 'settings.json'))).toBe(true);
    child.kill('SIGTERM');
    await finished;
  });

  it('fails fast naming the port and the setting when a port is taken', async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '::', resolve));
    const port = (blocker.address() as net.AddressInfo).port;
    try {
      const started = Date.now();
      const result = await runVigil(['agent', '--data-dir', makeTempDir(), ...FREE_PORTS, '--api-port', String(port)]);
      expect(result.code).not.toBe(0);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain(`port ${port} is already in use`);
      expect(result.stderr).toContain('"agentApi.port"');
      expect(result.stderr).toContain('--api-port');
      expect(result.stderr).not.toMatch(/\n\s+at /); // no stack trace
      expect(Date.now() - started).toBeLessThan(15_000);
    } finally {
      blocker.close();
    }
  });

  it('refuses to start on a corrupt settings file, naming file and field, and leaves it untouched', async () => {
    const dataDir = makeTempDir();
    const file = path.join(dataDir, 'settings.json');
    const contents = '{\n  "agentApi": { "port": "four" }\n}\n';
    fs.writeFileSync(file, contents);
    const result = await runVigil(['agent', '--data-dir', dataDir, ...FREE_PORTS]);
    expect(result.code).not.toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(file);
    expect(result.stderr).toContain('field "agentApi.port"');
    expect(fs.readFileSync(file, 'utf8')).toBe(contents);
    expect(fs.readdirSync(dataDir).sort()).toEqual(['settings.json']);
  });

  it('rejects a bad flag with exit code 2 and the usage', async () => {
    const result = await runVigil(['agent', '--api-port', 'http']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--api-port must be a port number');
    const unknown = await runVigil(['agent', '--bogus']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('usage: vigil agent');
  });

  it('refuses a second agent on the same data dir', async () => {
    const dataDir = makeTempDir();
    const first = spawnAgentOnFreePorts(dataDir);
    const finished = collect(first, 30_000);
    await waitForReady(first);
    const second = await runVigil(['agent', '--data-dir', dataDir, ...FREE_PORTS]);
    expect(second.code).toBe(1);
    expect(second.stderr).toMatch(/another Vigil agent \(pid \d+\) is already using/);
    first.kill('SIGTERM');
    expect((await finished).code).toBe(0);
  });
});
