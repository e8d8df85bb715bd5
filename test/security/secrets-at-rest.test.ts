/**
 * T21 and B07 (docs/authentication.md, docs/security.md): after a session that uses every kind of
 * credential — client secrets (body and Basic), access and refresh tokens (rotated, reused,
 * sent in the URL), console token, login link, session cookie and key, audit user password
 * (right and wrong) — neither the agent's log (at debug level) nor any file of its data directory holds
 * any of them in clear. The databases and settings hold keyed hashes only; the one exception is
 * the console token's own owner-only file.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { addClient, FORM_HEADERS, startAgentProcess, type AgentProcess } from '../helpers/agent-process.js';
import { runVigil } from '../helpers/cli.js';
import { makeTempDir } from '../helpers/temp-dir.js';

const PASSWORD = 'a passphrase nobody logs';
let agent: AgentProcess | null = null;
afterEach(async () => {
  await agent?.kill();
  agent = null;
});

function filesUnder(dir: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.join(e.parentPath, e.name));
}

it('T21/B07 no secret or token in clear in the logs or the data directory after a session using all of them', async () => {
  const dataDir = makeTempDir();
  fs.writeFileSync(path.join(dataDir, 'settings.json'), '{}\n');
  const added = await runVigil(
    ['user', 'add', '--name', 'auditor', '--role', 'reader', '--password-stdin', '--data-dir', dataDir],
    { stdin: PASSWORD },
  );
  expect(added.code, added.stderr).toBe(0);
  agent = await startAgentProcess({ dataDir, logLevel: 'debug' });
  const a = agent;
  const secrets: string[] = [PASSWORD];
  const token = async (params: Record<string, string>, headers: Record<string, string> = {}) => {
    const res = await a.api({
      method: 'POST',
      path: '/api/v1/token',
      headers: { ...FORM_HEADERS, ...headers },
      body: new URLSearchParams(params).toString(),
    });
    return { status: res.status, json: JSON.parse(res.text) as Record<string, string> };
  };

  const client = await addClient(a, ['read']);
  secrets.push(client.clientSecret);
  const first = await token({
    grant_type: 'client_credentials',
    client_id: client.clientId,
    client_secret: client.clientSecret,
  });
  expect(first.status).toBe(200);
  const basic = `Basic ${Buffer.from(`${client.clientId}:${client.clientSecret}`).toString('base64')}`;
  const second = await token({ grant_type: 'client_credentials' }, { Authorization: basic });
  expect(second.status).toBe(200);
  const rotated = await token({
    grant_type: 'refresh_token',
    client_id: client.clientId,
    refresh_token: first.json['refresh_token']!,
  });
  expect(rotated.status).toBe(200);
  // Reuse of the rotated token: refused, family revoked, logged as a warning.
  expect(
    (
      await token({
        grant_type: 'refresh_token',
        client_id: client.clientId,
        refresh_token: first.json['refresh_token']!,
      })
    ).status,
  ).toBe(400);
  for (const t of [first, second, rotated]) secrets.push(t.json['access_token']!, t.json['refresh_token']!);
  const at = second.json['access_token']!;
  expect((await a.api({ path: '/api/v1/agents', headers: { Authorization: `Bearer ${at}` } })).status).toBe(200);
  expect((await a.api({ path: `/api/v1/agents?access_token=${at}` })).status).toBe(401); // B07
  expect((await a.api({ path: `/api/v1/token?client_secret=${client.clientSecret}`, method: 'POST' })).status).toBe(
    400,
  );
  const wrong = await token({
    grant_type: 'client_credentials',
    client_id: client.clientId,
    client_secret: 'vgl_cs_x',
  });
  expect(wrong.status).toBe(401);
  const regenerated = await a.console({ method: 'POST', path: `/api/clients/${client.clientId}/secret` });
  const newSecret = (JSON.parse(regenerated.text) as { clientSecret: string }).clientSecret;
  secrets.push(newSecret);
  expect(
    (await token({ grant_type: 'client_credentials', client_id: client.clientId, client_secret: newSecret })).status,
  ).toBe(200);

  // Audit API: right and wrong passwords.
  expect((await a.audit({ path: 'activity_records/enum', auth: `auditor:${PASSWORD}` })).status).toBe(200);
  expect((await a.audit({ path: 'activity_records/enum', auth: `auditor:${PASSWORD}x` })).status).toBe(401);

  // Console: login link and session cookie.
  const link = JSON.parse((await a.console({ method: 'POST', path: '/api/login-links' })).text) as { url: string };
  const code = new URL(link.url).searchParams.get('code')!;
  secrets.push(code);
  const [cookie, sessionKey] = await new Promise<[string, string]>((resolve, reject) => {
    http
      .get(link.url, (res) => {
        res.resume();
        resolve([
          String(res.headers['set-cookie']?.[0] ?? '')
            .split(';')[0]!
            .split('=')[1]!,
          String(res.headers.location ?? '').replace('/#session=', ''),
        ]);
      })
      .on('error', reject);
  });
  expect(cookie.length).toBeGreaterThan(20);
  expect(sessionKey.length).toBeGreaterThan(20);
  secrets.push(cookie, sessionKey);
  const consoleToken = fs.readFileSync(path.join(dataDir, 'secrets', 'console-token'), 'utf8').trim();

  expect(await a.stop()).toBe(0);
  const log = a.stderr();
  expect(log).toContain('DEBUG'); // the log ran at debug level
  for (const secret of [...secrets, consoleToken]) {
    expect(log.includes(secret), `log holds ${secret.slice(0, 10)}…`).toBe(false);
  }
  expect(log).not.toMatch(/vgl_(at|rt|cs)_[0-9A-Za-z]{20}|vgc_[0-9A-Za-z]{20}/);

  for (const file of filesUnder(dataDir)) {
    const bytes = fs.readFileSync(file);
    for (const secret of secrets) {
      expect(bytes.includes(Buffer.from(secret)), `${path.relative(dataDir, file)} holds a secret`).toBe(false);
    }
    if (path.relative(dataDir, file) !== path.join('secrets', 'console-token')) {
      expect(bytes.includes(Buffer.from(consoleToken)), `${path.relative(dataDir, file)} holds the console token`).toBe(
        false,
      );
    }
  }
});
