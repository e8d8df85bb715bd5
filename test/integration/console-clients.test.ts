/**
 * The console API for client applications (shared/console-api.ts ConsoleClientPaths): add shows
 * the secret once, list never shows it, names are unique, bad input names the field, and every
 * change reaches the ChangeRecorder with the right actor.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAgent } from '../helpers/test-agent.js';
import { MemoryChangeRecorder } from '../../agent/pipeline/change-recorder.js';
import { consoleRequest, withToken, type ConsoleResponse } from '../helpers/console-client.js';
import { tokenRequest } from '../helpers/api-client.js';
import { startTestAgent } from '../helpers/test-agent.js';

let agent: TestAgent;
const changes = new MemoryChangeRecorder();

beforeAll(async () => {
  agent = await startTestAgent({ changeRecorder: changes });
});
afterAll(() => agent.stop());

function call(
  method: string,
  path: string,
  body?: unknown,
  extra: Record<string, string> = {},
): Promise<ConsoleResponse> {
  return consoleRequest(agent, { method, path, headers: withToken(agent, extra), body });
}

function expectError(response: ConsoleResponse, status: number, error: string, field?: string): void {
  expect(response.status).toBe(status);
  expect(response.json?.['error']).toBe(error);
  expect(typeof response.json?.['error_description']).toBe('string');
  if (field !== undefined) expect(response.json?.['field']).toBe(field);
}

describe('client applications through the console API', () => {
  it('adds a client, shows its secret once with no-store, and the secret obtains a token', async () => {
    const created = await call('POST', '/api/clients', {
      name: 'SIEM collector',
      permissions: ['read', 'accessActivityData'],
    });
    expect(created.status).toBe(201);
    expect(created.headers['cache-control']).toBe('no-store');
    expect(created.json).toMatchObject({
      name: 'SIEM collector',
      permissions: ['accessActivityData', 'read'],
      clientId: expect.stringMatching(/^[0-9a-f]{32}$/),
      clientSecret: expect.stringMatching(/^vgl_cs_/),
    });
    const expires = Date.parse(created.json?.['secretExpiresAt'] as string);
    expect(expires - Date.now()).toBeGreaterThan(72 * 3600_000 - 60_000);
    expect(expires - Date.now()).toBeLessThanOrEqual(72 * 3600_000);

    const token = await tokenRequest(agent, {
      grant_type: 'client_credentials',
      client_id: created.json?.['clientId'] as string,
      client_secret: created.json?.['clientSecret'] as string,
    });
    expect(token.status).toBe(200);

    const list = await call('GET', '/api/clients');
    expect(list.status).toBe(200);
    expect(list.text).not.toContain(created.json?.['clientSecret'] as string);
    expect(list.text).not.toContain('secretHash');
    const entry = (JSON.parse(list.text) as Array<Record<string, unknown>>).find((c) => c['name'] === 'SIEM collector');
    expect(Object.keys(entry ?? {}).sort()).toEqual(
      ['clientId', 'createdAt', 'name', 'permissions', 'secretExpired', 'secretExpiresAt'].sort(),
    );
    expect(changes.changes.at(-1)).toMatchObject({ actor: 'console', action: 'Added', what: 'SIEM collector' });
    expect(JSON.stringify(changes.changes)).not.toContain(created.json?.['clientSecret'] as string);
  });

  it('keeps the secret out of settings.json: only its HMAC is stored', async () => {
    const created = await call('POST', '/api/clients', { name: 'hash check', permissions: ['read'] });
    const settings = await import('node:fs').then((fs) => fs.readFileSync(agent.paths.settings, 'utf8'));
    expect(settings).toContain(created.json?.['clientId'] as string);
    expect(settings).not.toContain(created.json?.['clientSecret'] as string);
  });

  it.each([
    [{ name: '', permissions: ['read'] }, 'name'],
    [{ name: '   ', permissions: ['read'] }, 'name'],
    [{ name: 42, permissions: ['read'] }, 'name'],
    [{ permissions: ['read'] }, 'name'],
    [{ name: 'x', permissions: ['write'] }, 'permissions[0]'],
    [{ name: 'x', permissions: ['read', 'modify-host'] }, 'permissions[1]'],
    [{ name: 'x', permissions: 'read' }, 'permissions'],
    [{ name: 'x' }, 'permissions'],
  ])('refuses %j with 400 naming the field %s', async (body, field) => {
    expectError(await call('POST', '/api/clients', body), 400, 'invalid_request', field);
  });

  it('refuses a duplicate name (case-insensitive) with 409', async () => {
    expect((await call('POST', '/api/clients', { name: 'Unique', permissions: ['read'] })).status).toBe(201);
    expectError(await call('POST', '/api/clients', { name: 'unique', permissions: ['read'] }), 409, 'conflict', 'name');
  });

  it('refuses a body that is not JSON', async () => {
    const response = await consoleRequest(agent, {
      method: 'POST',
      path: '/api/clients',
      headers: withToken(agent, { 'Content-Type': 'application/x-www-form-urlencoded' }),
    });
    expect(response.status).toBe(415);
    expectError(
      await consoleRequest(agent, {
        method: 'POST',
        path: '/api/clients',
        headers: withToken(agent, { 'Content-Type': 'application/json' }),
      }),
      400,
      'invalid_request',
    );
  });

  it('sets permissions, regenerates the secret and revokes, recording each change as the CLI', async () => {
    const created = await call('POST', '/api/clients', { name: 'lifecycle', permissions: ['read'] });
    const id = created.json?.['clientId'] as string;
    const cli = { 'X-Vigil-Actor': 'cli' };

    const changed = await call(
      'PUT',
      `/api/clients/${id}/permissions`,
      { permissions: ['modifyHost', 'modifyAgent'] },
      cli,
    );
    expect(changed.status).toBe(200);
    expect(changed.json?.['permissions']).toEqual(['modifyHost', 'modifyAgent']);
    expect(changes.changes.at(-1)).toMatchObject({
      actor: 'cli',
      action: 'Modified',
      details: [{ PropertyName: 'Permissions', Before: 'read', After: 'modifyHost, modifyAgent' }],
    });

    const secret = await call('POST', `/api/clients/${id}/secret`, undefined, cli);
    expect(secret.status).toBe(200);
    expect(secret.json?.['clientSecret']).not.toBe(created.json?.['clientSecret']);

    const revoked = await call('DELETE', `/api/clients/${id}`, undefined, cli);
    expect(revoked.json).toEqual({ clientId: id, name: 'lifecycle', revoked: true });
    expect(changes.changes.at(-1)).toMatchObject({ actor: 'cli', action: 'Removed', what: 'lifecycle' });
    expect(agent.auth.clients.find(id)).toBeUndefined();
  });

  it('answers 404 for an unknown client id', async () => {
    expectError(await call('DELETE', '/api/clients/0123'), 404, 'not_found');
    expectError(await call('PUT', '/api/clients/0123/permissions', { permissions: [] }), 404, 'not_found');
    expectError(await call('POST', '/api/clients/0123/secret'), 404, 'not_found');
  });

  it('answers 405 with Allow for a wrong method', async () => {
    const response = await call('PATCH', '/api/clients');
    expect(response.status).toBe(405);
    expect(response.headers['allow']).toContain('POST');
  });
});
