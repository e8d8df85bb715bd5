/**
 * Console access (shared/console-api.ts, docs/security.md, docs/console.md, C02–C05, C09): the loopback Host
 * rule,
 * the console token, one-time login links turned into a session (cookie and session key),
 * sessions for the tray app, the cookie isolated by port (F17 in docs/security.md), and the Origin
 * rule for changes made with a session.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAgent } from '../helpers/test-agent.js';
import { consoleSessionCookie } from '../../shared/console-api.js';
import { consoleLogin, consoleRequest, consoleToken, withToken } from '../helpers/console-client.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { startTestAgent } from '../helpers/test-agent.js';

let agent: TestAgent;
let clock = Date.parse('2026-03-01T10:00:00Z');

beforeAll(async () => {
  agent = await startTestAgent({ now: () => clock });
});
afterAll(() => agent.stop());

const status = (headers: Record<string, string>): ReturnType<typeof consoleRequest> =>
  consoleRequest(agent, { path: '/api/status', headers });

const cookieName = (): string => consoleSessionCookie(agent.ports.console);

describe('console token', () => {
  it('is a fresh vgc_ value in an owner-only file', () => {
    const token = consoleToken(agent);
    expect(token).toMatch(/^vgc_[0-9A-Za-z]{49}$/);
    if (process.platform !== 'win32') {
      expect(fs.statSync(agent.paths.consoleToken).mode & 0o777).toBe(0o600);
      expect(fs.statSync(agent.paths.secrets).mode & 0o777).toBe(0o700);
    }
  });

  it('is required: no credentials or a wrong token → 401 with a challenge; the right one → 200', async () => {
    const none = await status({});
    expect(none.status).toBe(401);
    expect(none.headers['www-authenticate']).toMatch(/^Bearer realm="vigil-console"/);
    expect((await status({ Authorization: 'Bearer vgc_wrong' })).status).toBe(401);
    const ok = await status(withToken(agent));
    expect(ok.status).toBe(200);
    expect(ok.json).toMatchObject({ certificateSha256: agent.identity.fingerprint256 });
  });

  it('changes at every start: the previous run’s token is refused, and a stop removes the file', async () => {
    const dataDir = makeTempDir();
    const first = await startTestAgent({ dataDir });
    const old = consoleToken(first);
    await first.stop();
    expect(fs.existsSync(first.paths.consoleToken)).toBe(false); // a clean stop removes it
    const second = await startTestAgent({ dataDir });
    try {
      expect(consoleToken(second)).not.toBe(old);
      const refused = await consoleRequest(second, {
        path: '/api/status',
        headers: { Authorization: `Bearer ${old}` },
      });
      expect(refused.status).toBe(401);
    } finally {
      await second.stop();
    }
  });
});

describe('Host header (DNS rebinding)', () => {
  it.each(['evil.example', '127.0.0.1.nip.io:PORT', 'evil.example:PORT', '127.0.0.1:1', '[::1]:PORT'])(
    'refuses Host %s even with the token',
    async (host) => {
      const response = await status(withToken(agent, { Host: host.replace('PORT', String(agent.ports.console)) }));
      expect(response.status).toBe(403);
      expect(response.json?.['error']).toBe('forbidden_host');
    },
  );

  it.each(['127.0.0.1:PORT', 'localhost:PORT', 'LOCALHOST:PORT'])('accepts Host %s', async (host) => {
    const response = await status(withToken(agent, { Host: host.replace('PORT', String(agent.ports.console)) }));
    expect(response.status).toBe(200);
  });

  it('applies to the login page too', async () => {
    const response = await consoleRequest(agent, { path: '/login?code=x', headers: { Host: 'evil.example' } });
    expect(response.status).toBe(403);
  });
});

describe('login links and sessions', () => {
  it('turns a one-time link into an HttpOnly SameSite=Strict cookie and a 303 to / with the session key in the fragment', async () => {
    const link = await consoleRequest(agent, { method: 'POST', path: '/api/login-links', headers: withToken(agent) });
    expect(link.status).toBe(201);
    const url = new URL(link.json?.['url'] as string);
    expect(url.origin).toBe(`http://127.0.0.1:${agent.ports.console}`);
    expect(Date.parse(link.json?.['expiresAt'] as string)).toBe(clock + 60_000);

    const login = await consoleRequest(agent, { path: url.pathname + url.search });
    expect(login.status).toBe(303);
    const key = /^\/#session=([A-Za-z0-9_-]{43})$/.exec(login.headers['location'] ?? '')?.[1];
    expect(key, login.headers['location']).toBeDefined();
    expect(login.headers['referrer-policy']).toBe('no-referrer');
    const cookie = login.headers['set-cookie']?.[0] ?? '';
    expect(cookie).toMatch(new RegExp(`^vigil_console_${agent.ports.console}=`));
    expect(cookie.toLowerCase()).toContain('httponly');
    expect(cookie.toLowerCase()).toContain('samesite=strict');

    const session = cookie.split(';')[0]!;
    expect((await status({ Cookie: session, 'X-Vigil-Session': key! })).status).toBe(200);
    // single use
    expect((await consoleRequest(agent, { path: url.pathname + url.search })).status).toBe(403);
  });

  it('expires an unused link after 60 seconds', async () => {
    const link = await consoleRequest(agent, { method: 'POST', path: '/api/login-links', headers: withToken(agent) });
    clock += 60_000;
    const url = new URL(link.json?.['url'] as string);
    const login = await consoleRequest(agent, { path: url.pathname + url.search });
    expect(login.status).toBe(403);
    expect(login.headers['set-cookie']).toBeUndefined();
  });

  it('gives the tray app a session directly, and only to token holders', async () => {
    const created = await consoleRequest(agent, { method: 'POST', path: '/api/sessions', headers: withToken(agent) });
    expect(created.status).toBe(201);
    expect(created.json?.['cookieName']).toBe(cookieName());
    const cookie = `${cookieName()}=${created.json?.['cookieValue'] as string}`;
    const key = created.json?.['sessionKey'] as string;
    expect((await status({ Cookie: cookie, 'X-Vigil-Session': key })).status).toBe(200);
    const origin = `http://127.0.0.1:${agent.ports.console}`;
    const byCookie = await consoleRequest(agent, {
      method: 'POST',
      path: '/api/login-links',
      headers: { Cookie: cookie, 'X-Vigil-Session': key, Origin: origin },
    });
    expect(byCookie.status).toBe(403);
  });

  it('refuses a made-up session cookie', async () => {
    const { sessionKey } = await consoleLogin(agent);
    expect((await status({ Cookie: `${cookieName()}=forged`, 'X-Vigil-Session': sessionKey })).status).toBe(401);
  });
});

describe('the session cookie alone (F17: cookies are not isolated by port)', () => {
  it('is refused: a page on another 127.0.0.1 port receives the cookie, not the session key', async () => {
    const session = await consoleLogin(agent);
    const onlyCookie = await status({ Cookie: session.cookie });
    expect(onlyCookie.status).toBe(401);
    expect(onlyCookie.json?.['error']).toBe('unauthorized');
    expect((await status({ Cookie: session.cookie, 'X-Vigil-Session': 'guessed' })).status).toBe(401);
    expect((await status(session.headers())).status).toBe(200);
    // The key goes with its own cookie only.
    const other = await consoleLogin(agent);
    expect((await status({ Cookie: session.cookie, 'X-Vigil-Session': other.sessionKey })).status).toBe(401);
    // A change is refused with the key in the query: that form is for GET only (event streams, downloads).
    const viaQuery = await consoleRequest(agent, {
      method: 'PUT',
      path: `/api/monitoring?session=${session.sessionKey}`,
      headers: { Cookie: session.cookie, Origin: `http://127.0.0.1:${agent.ports.console}` },
      body: { paused: true },
    });
    expect(viaQuery.status).toBe(401);
    expect(agent.monitoring.paused).toBe(false);
    expect((await status({ Cookie: session.cookie, 'X-Vigil-Session': '' })).status).toBe(401);
    const read = await consoleRequest(agent, {
      path: `/api/status?session=${session.sessionKey}`,
      headers: { Cookie: session.cookie },
    });
    expect(read.status).toBe(200);
  });

  it('survives a second login in the same browser: the cookie stays, both tabs keep their keys', async () => {
    const first = await consoleLogin(agent);
    const link = await consoleRequest(agent, { method: 'POST', path: '/api/login-links', headers: withToken(agent) });
    const url = new URL(link.json?.['url'] as string);
    const again = await consoleRequest(agent, { path: url.pathname + url.search, headers: { Cookie: first.cookie } });
    expect(again.status).toBe(303);
    expect((again.headers['set-cookie']?.[0] ?? '').split(';')[0]).toBe(first.cookie);
    const secondKey = /#session=(.+)$/.exec(again.headers['location'] ?? '')?.[1] ?? '';
    expect(secondKey).not.toBe(first.sessionKey);
    expect((await status(first.headers())).status).toBe(200);
    expect((await status({ Cookie: first.cookie, 'X-Vigil-Session': secondKey })).status).toBe(200);
    // A key stays bound to its cookie: another browser's cookie does not take it.
    const other = await consoleLogin(agent);
    expect((await status({ Cookie: other.cookie, 'X-Vigil-Session': secondKey })).status).toBe(401);
  });

  it('is named after the console port: the cookie of a console on another port is ignored', async () => {
    const session = await consoleLogin(agent);
    const value = session.cookie.split('=')[1]!;
    const otherPort = agent.ports.console === 4495 ? 4496 : 4495;
    const foreign = await status({
      Cookie: `vigil_console_${otherPort}=${value}`,
      'X-Vigil-Session': session.sessionKey,
    });
    expect(foreign.status).toBe(401);
    const unnamed = await status({ Cookie: `vigil_console=${value}`, 'X-Vigil-Session': session.sessionKey });
    expect(unnamed.status).toBe(401);
    expect((await status(session.headers())).status).toBe(200);
  });
});

describe('changes made with a session cookie (CSRF)', () => {
  const add = (headers: Record<string, string>, name: string): ReturnType<typeof consoleRequest> =>
    consoleRequest(agent, {
      method: 'POST',
      path: '/api/clients',
      headers,
      body: { name, permissions: ['read'] },
    });

  it.each([
    ['no Origin', {}],
    ['a foreign Origin', { Origin: 'http://evil.example' }],
    ['Origin null', { Origin: 'null' }],
    ['another port', { Origin: 'http://127.0.0.1:1' }],
    ['Sec-Fetch-Site cross-site', { Origin: 'ORIGIN', 'Sec-Fetch-Site': 'cross-site' }],
  ])('refuses %s with 403', async (_label, extra: Record<string, string>) => {
    const { cookie, sessionKey } = await consoleLogin(agent);
    const origin = `http://127.0.0.1:${agent.ports.console}`;
    const headers = Object.fromEntries(Object.entries(extra).map(([k, v]) => [k, v.replace('ORIGIN', origin)]));
    const response = await add({ Cookie: cookie, 'X-Vigil-Session': sessionKey, ...headers }, `csrf ${_label}`);
    expect(response.status).toBe(403);
    expect(response.json?.['error']).toBe('forbidden_origin');
    expect(agent.auth.clients.list().some((c) => c.name === `csrf ${_label}`)).toBe(false);
  });

  it('accepts the console’s own Origin, and reads need none', async () => {
    const session = await consoleLogin(agent);
    const response = await add(session.headers({ 'Sec-Fetch-Site': 'same-origin' }), 'from the console');
    expect(response.status).toBe(201);
    const read = { Cookie: session.cookie, 'X-Vigil-Session': session.sessionKey };
    expect((await consoleRequest(agent, { path: '/api/clients', headers: read })).status).toBe(200);
  });
});
