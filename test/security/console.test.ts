/**
 * Console rows of docs/security.md (and docs/console.md) that
 * test/integration/console-*.test.ts do not already cover: no state change through GET (C06),
 * hardening headers on every answer (C07), and the console token kept out of the process list
 * and environment (C09).
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAgent } from '../helpers/test-agent.js';
import { CONSOLE_CSP } from '../../agent/console/static-files.js';
import { consoleRequest, consoleToken, withToken } from '../helpers/console-client.js';
import { startTestAgent } from '../helpers/test-agent.js';
import { startAgentProcess } from '../helpers/agent-process.js';

let agent: TestAgent;
beforeAll(async () => {
  agent = await startTestAgent();
});
afterAll(() => agent.stop());

describe('console (docs/security.md)', () => {
  it('C06 GET on the revoke and regenerate-secret paths changes nothing: 405 with Allow, the client and its secret stay', async () => {
    const created = await consoleRequest(agent, {
      method: 'POST',
      path: '/api/clients',
      headers: withToken(agent),
      body: { name: 'c06', permissions: ['read'] },
    });
    expect(created.status).toBe(201);
    const id = created.json?.['clientId'] as string;
    const secret = created.json?.['clientSecret'] as string;
    for (const path of [`/api/clients/${id}`, `/api/clients/${id}/secret`, `/api/clients/${id}/permissions`]) {
      const response = await consoleRequest(agent, { path, headers: withToken(agent) });
      expect(response.status, path).toBe(405);
      expect(response.headers['allow'], path).toBeDefined();
    }
    expect(agent.auth.clients.find(id)).toBeDefined();
    expect(agent.auth.clients.authenticate(id, secret).ok).toBe(true);
  });

  it.each([
    ['the web app', '/', {}],
    ['an app route', '/clients', {}],
    ['the API with the token', '/api/status', 'token'],
    ['the API without credentials', '/api/status', {}],
    ['an unknown API path', '/api/no-such-thing', 'token'],
    ['the login page with a bad code', '/login?code=nope', {}],
  ] as const)(
    'C07 %s: CSP frame-ancestors none, X-Frame-Options DENY, nosniff, Referrer-Policy no-referrer',
    async (_label, path, auth) => {
      const response = await consoleRequest(agent, { path, headers: auth === 'token' ? withToken(agent) : {} });
      expect(response.headers['content-security-policy']).toBe(CONSOLE_CSP);
      expect(response.headers['x-frame-options']).toBe('DENY');
      expect(response.headers['x-content-type-options']).toBe('nosniff');
      expect(response.headers['referrer-policy']).toBe('no-referrer');
    },
  );

  it('C07 a refused Host gets the same headers, and answers that carry a secret are no-store', async () => {
    const foreign = await consoleRequest(agent, { path: '/', headers: { Host: 'evil.example' } });
    expect(foreign.status).toBe(403);
    expect(foreign.headers['content-security-policy']).toBe(CONSOLE_CSP);
    expect(foreign.headers['x-frame-options']).toBe('DENY');
    const created = await consoleRequest(agent, {
      method: 'POST',
      path: '/api/clients',
      headers: withToken(agent),
      body: { name: 'c07', permissions: ['read'] },
    });
    expect(created.headers['cache-control']).toBe('no-store');
    const link = await consoleRequest(agent, { method: 'POST', path: '/api/login-links', headers: withToken(agent) });
    expect(link.headers['cache-control']).toBe('no-store');
  });

  it('C09 the console token file is owner-only, and the token is in neither the argv nor the environment of the agent', async () => {
    const mode = fs.statSync(agent.paths.consoleToken).mode & 0o777;
    expect(mode).toBe(0o600);
    const running = await startAgentProcess();
    try {
      const token = fs.readFileSync(`${running.dataDir}/secrets/console-token`, 'utf8').trim();
      expect(token).toMatch(/^vgc_/);
      const pid = running.child.pid!;
      expect(fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8')).not.toContain(token);
      expect(fs.readFileSync(`/proc/${pid}/environ`, 'utf8')).not.toContain(token);
      // Nor in anything the agent started (its worker threads share the process; child processes would show here).
      const children = fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim();
      for (const child of children.split(/\s+/).filter(Boolean)) {
        expect(fs.readFileSync(`/proc/${child}/cmdline`, 'utf8')).not.toContain(token);
        expect(fs.readFileSync(`/proc/${child}/environ`, 'utf8')).not.toContain(token);
      }
    } finally {
      await running.stop();
    }
    expect(consoleToken(agent)).toMatch(/^vgc_/);
  });
});
