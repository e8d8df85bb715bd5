/**
 * `vigil client …` and `vigil console` as an operator runs them (README.md): JSON on stdout,
 * exit 2 for usage mistakes, working on the data dir when no agent runs (under the agent lock)
 * and through the console API when one does, so changes apply at once.
 */
import fs from 'node:fs';
import Database from 'better-sqlite3';
import https from 'node:https';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collect, runVigil, spawnAgentOnFreePorts, spawnVigil, waitForReady } from '../helpers/cli.js';
import { makeTempDir } from '../helpers/temp-dir.js';

/** A request to the agent API of a child-process agent, trusting its certificate file. */
function apiCall(
  dataDir: string,
  apiUrl: string,
  options: { method?: string; path: string; headers?: Record<string, string>; body?: string },
): Promise<{ status: number; json: Record<string, unknown> }> {
  const ca = fs.readFileSync(path.join(dataDir, 'tls', 'cert.pem'), 'utf8');
  return new Promise((resolve, reject) => {
    const req = https.request(
      new URL(options.path, apiUrl),
      { method: options.method ?? 'GET', headers: options.headers, ca },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, json: JSON.parse(text) as Record<string, unknown> }),
        );
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

function token(
  dataDir: string,
  apiUrl: string,
  id: string,
  secret: string,
): Promise<{ status: number; json: Record<string, unknown> }> {
  return apiCall(dataDir, apiUrl, {
    method: 'POST',
    path: '/api/v1/token',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: id, client_secret: secret }).toString(),
  });
}

describe('vigil client without a running agent', () => {
  const dataDir = makeTempDir();
  const vigil = (...args: string[]): ReturnType<typeof runVigil> => runVigil([...args, '--data-dir', dataDir]);

  it('adds a client and prints exactly clientId, clientSecret, secretExpiresAt, permissions', async () => {
    const result = await vigil(
      'client',
      'add',
      '--name',
      'Offline app',
      '--permission',
      'read',
      '--permission',
      'modify-host',
    );
    expect(result.code).toBe(0);
    const out = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(result.stderr).not.toContain(out['clientSecret'] as string); // never logged
    expect(Object.keys(out)).toEqual(['clientId', 'clientSecret', 'secretExpiresAt', 'permissions']);
    expect(out['permissions']).toEqual(['read', 'modifyHost']);
    expect(fs.existsSync(path.join(dataDir, 'agent.lock'))).toBe(false); // the lock was released
    const list = await vigil('client', 'list');
    expect(JSON.parse(list.stdout)).toEqual([
      expect.objectContaining({ clientId: out['clientId'], name: 'Offline app' }),
    ]);
    // The change is in the audit store as a self-audit record, committed before the command ended.
    const db = new Database(path.join(dataDir, 'audit.db'), { readonly: true });
    const rows = db
      .prepare(
        "SELECT who, action, what, object_type, data_source FROM activity_records WHERE data_source = 'Vigil Agent'",
      )
      .all();
    db.close();
    expect(rows).toEqual([
      {
        who: 'cli',
        action: 'Added',
        what: 'Offline app',
        object_type: 'Client application',
        data_source: 'Vigil Agent',
      },
    ]);
  });

  it.each([
    [['client', 'add', '--name', 'x', '--permission', 'write'], /unknown permission "write"; use access-activity-data/],
    [['client', 'add', '--name', '  ', '--permission', 'read'], /name must not be empty/],
    [['client', 'add', '--name', 'offline APP', '--permission', 'read'], /already exists/],
    [['client', 'add', '--name', 'x'], /at least one --permission/],
    [['client', 'revoke', '--name', 'nobody'], /no client application named "nobody"/],
    [['client', 'set-permissions', '--id', 'ffff', '--permission', 'read'], /no client application ffff/],
    [['client', 'revoke'], /--id or --name/],
    [['client', 'frobnicate'], /unknown subcommand "frobnicate"/],
    [['client', 'list', '--bogus'], /usage: vigil client/],
  ])('exits 2 for %j with a clear message', async (args, message) => {
    const result = await vigil(...args);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(message);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('vigil console needs a running agent', async () => {
    const result = await vigil('console');
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/no agent is running/);
  });
});

describe('vigil client with a running agent', () => {
  const dataDir = makeTempDir();
  let agent: ReturnType<typeof spawnVigil>;
  let finished: ReturnType<typeof collect>;
  let apiUrl = '';
  const vigil = (...args: string[]): ReturnType<typeof runVigil> => runVigil([...args, '--data-dir', dataDir]);

  beforeAll(async () => {
    // A client added before the agent starts is picked up by it.
    const early = await vigil('client', 'add', '--name', 'early', '--permission', 'read');
    expect(early.code).toBe(0);
    agent = spawnAgentOnFreePorts(dataDir);
    finished = collect(agent, 60_000);
    apiUrl = (await waitForReady(agent))['apiUrl']!;
    const out = JSON.parse(early.stdout) as Record<string, string>;
    expect((await token(dataDir, apiUrl, out['clientId']!, out['clientSecret']!)).status).toBe(200);
  });
  afterAll(async () => {
    agent.kill('SIGTERM');
    expect((await finished).code).toBe(0);
  });

  it('goes through the console API: the new secret works at once, changes apply to live tokens', async () => {
    const added = await vigil('client', 'add', '--name', 'live app', '--permission', 'modify-host');
    expect(added.code).toBe(0);
    const { clientId, clientSecret } = JSON.parse(added.stdout) as Record<string, string>;
    const issued = await token(dataDir, apiUrl, clientId!, clientSecret!);
    expect(issued.status).toBe(200);
    const bearer = { Authorization: `Bearer ${issued.json['access_token'] as string}` };
    expect((await apiCall(dataDir, apiUrl, { path: '/api/v1/agents', headers: bearer })).status).toBe(401);

    const changed = await vigil('client', 'set-permissions', '--name', 'live app', '--permission', 'read');
    expect(changed.code).toBe(0);
    expect(JSON.parse(changed.stdout)).toMatchObject({ clientId, permissions: ['read'] });
    expect((await apiCall(dataDir, apiUrl, { path: '/api/v1/agents', headers: bearer })).status).toBe(200);

    const regenerated = await vigil('client', 'regenerate-secret', '--id', clientId!);
    const fresh = JSON.parse(regenerated.stdout) as Record<string, string>;
    expect(fresh['clientSecret']).not.toBe(clientSecret);
    expect((await token(dataDir, apiUrl, clientId!, fresh['clientSecret']!)).status).toBe(200);
    expect((await token(dataDir, apiUrl, clientId!, clientSecret!)).status).toBe(401);

    const revoked = await vigil('client', 'revoke', '--id', clientId!);
    expect(JSON.parse(revoked.stdout)).toEqual({ clientId, name: 'live app', revoked: true });
    expect((await apiCall(dataDir, apiUrl, { path: '/api/v1/agents', headers: bearer })).status).toBe(401);
  });

  it('reports mistakes from the agent with exit 2 too', async () => {
    const duplicate = await vigil('client', 'add', '--name', 'EARLY', '--permission', 'read');
    expect(duplicate.code).toBe(2);
    expect(duplicate.stderr).toMatch(/already exists/);
  });

  it('vigil console prints a one-time login link that opens a session', async () => {
    const result = await vigil('console');
    expect(result.code).toBe(0);
    const { url } = JSON.parse(result.stdout) as { url: string };
    const first = await fetch(url, { redirect: 'manual' });
    expect(first.status).toBe(303);
    expect(first.headers.get('set-cookie')).toMatch(/HttpOnly/i);
    expect((await fetch(url, { redirect: 'manual' })).status).toBe(403);
  });
});
