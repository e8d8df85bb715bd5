/**
 * F1 in docs/security.md: the console's guard runs where routing happens. Every route of the
 * console API (from the agent's own route table), requested without credentials in other
 * spellings of its path (letter case, percent-encoding of letters, double encoding, a detour
 * through `..`), answers 401 and changes nothing; with credentials, only the canonical spelling
 * is served (the others are 404, never 200). Changes and file-system lookups never run for an
 * unauthenticated request: no reset of the diagnostics, no existence oracle on folders.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAgent } from '../helpers/test-agent.js';
import type { RouteInfo } from '../../agent/http/api-router.js';
import { consoleAuth } from '../../agent/console/console-guard.js';
import { ApiError } from '../../agent/http/api-error.js';
import { consoleRequest, withToken } from '../helpers/console-client.js';
import { monitorFolders } from '../helpers/activity.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { startTestAgent } from '../helpers/test-agent.js';

let agent: TestAgent;
let params: Record<string, string>;
let watched: string;

beforeAll(async () => {
  agent = await startTestAgent();
  watched = makeTempDir('vigil-watched-');
  const hostId = await monitorFolders(agent, [watched]);
  const client = await consoleRequest(agent, {
    method: 'POST',
    path: '/api/clients',
    headers: withToken(agent),
    body: { name: 'existing', permissions: ['read'] },
  });
  const user = await consoleRequest(agent, {
    method: 'POST',
    path: '/api/audit-users',
    headers: withToken(agent),
    body: { name: 'existing', roles: ['reader'], password: 'a long password' },
  });
  expect([client.status, user.status]).toEqual([201, 201]);
  params = {
    clientId: client.json?.['clientId'] as string,
    hostId,
    outputId: agent.settings.current.outputs[0]!.id,
    name: 'existing',
    fileId: 'h_Log_20260101.tsv',
  };
});
afterAll(() => agent.stop());

/** A small seeded generator, so a failing spelling can be reproduced. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const encode = (c: string): string => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`;

/** The route's path with real ids in place of its parameters. */
function concrete(route: RouteInfo): string {
  return route.path.replace(/:(\w+)/g, (_m, name: string) => encodeURIComponent(params[name] ?? 'x'));
}

/** Other spellings of `canonical`, each of which a lower-casing, decoding reader takes for it. */
function variants(canonical: string, next: () => number): string[] {
  const rest = canonical.slice('/api'.length);
  const flip = (text: string): string =>
    [...text]
      .map((c) => (/[a-z]/i.test(c) && next() < 0.5 ? (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()) : c))
      .join('');
  const sprinkle = (text: string): string =>
    [...text].map((c) => (/[a-z0-9]/i.test(c) && next() < 0.3 ? encode(c) : c)).join('');
  const letter = (text: string): string => {
    const positions = [...text].flatMap((c, i) => (/[a-z]/i.test(c) ? [i] : []));
    const at = positions[Math.floor(next() * positions.length)]!;
    return text.slice(0, at) + encode(text[at]!) + text.slice(at + 1);
  };
  return [
    `/API${rest}`,
    `/Api${rest}`,
    `/${flip('api')}${flip(rest)}`.replace(/^\/api\//, '/aPi/'),
    `/%61pi${rest}`,
    `/%2561pi${rest}`,
    `/api${letter(rest.split('?')[0]!)}${rest.includes('?') ? rest.slice(rest.indexOf('?')) : ''}`,
    `/${sprinkle('api')}${flip(rest.split('?')[0]!)}`.replace(/^\/api\//, '/ap%69/'),
    `/x/..${flip('/api')}${rest}`.replace('/x/../api/', '/x/../API/'),
    `/api%2F${rest.slice(1)}`,
  ];
}

const BODIES: Record<string, unknown> = {
  POST: {
    name: 'intruder',
    permissions: ['read', 'modifyAgent'],
    path: '/root',
    roles: ['reader'],
    password: 'a long password',
  },
  PUT: { paused: true, enabled: false, permissions: ['modifyAgent'], roles: ['contributor'], password: 'another one!' },
  PATCH: { allowList: ['0.0.0.0/1'] },
};

/** Everything an unauthenticated change could alter. */
async function state(): Promise<string> {
  const s = agent.settings.current;
  const diagnostics = await consoleRequest(agent, { path: '/api/diagnostics', headers: withToken(agent) });
  const since = (diagnostics.json?.['eventLoopDelay'] as { since: string }).since;
  return JSON.stringify([s.allowList, s.clients, s.auditUsers, s.hosts, s.outputs, agent.monitoring.paused, since]);
}

describe('every console route, in every spelling, without credentials', () => {
  it('has a route table to test', () => {
    expect(agent.consoleRoutes.length).toBeGreaterThanOrEqual(25);
    expect(agent.consoleRoutes).toContainEqual(
      expect.objectContaining({ method: 'POST', path: '/api/diagnostics/reset' }),
    );
  });

  it('answers 401 to each, with no side effect', async () => {
    const next = random(20261124);
    const before = await state();
    const seen: string[] = [];
    for (const route of agent.consoleRoutes) {
      const canonical = concrete(route);
      for (const spelling of [canonical, ...variants(canonical, next)]) {
        const response = await consoleRequest(agent, {
          method: route.method,
          path: spelling,
          body: BODIES[route.method],
        });
        seen.push(`${route.method} ${spelling} → ${response.status}`);
        expect(response.status, `${route.method} ${spelling}`).toBe(401);
        expect(response.json?.['error'], `${route.method} ${spelling}`).toBe('unauthorized');
      }
    }
    expect(seen.length).toBeGreaterThanOrEqual(agent.consoleRoutes.length * 10);
    expect(await state()).toBe(before);
  });

  it('gives no existence oracle: a folder, a file and nothing answer alike', async () => {
    const file = path.join(watched, 'a-file.txt');
    fs.writeFileSync(file, 'x');
    const answers = new Set<string>();
    for (const probe of [watched, file, path.join(watched, 'missing'), '/root/.ssh', '/etc/shadow']) {
      for (const prefix of ['/api', '/API', '/%61pi']) {
        const response = await consoleRequest(agent, {
          method: 'POST',
          path: `${prefix}/hosts/${params['hostId']}/folders`,
          body: { path: probe },
        });
        answers.add(`${response.status} ${response.text}`);
      }
    }
    expect([...answers]).toHaveLength(1);
    expect([...answers][0]).toMatch(/^401 /);
  });
});

describe('with the console token', () => {
  it('serves only the canonical spelling; the others are 404, never 200', async () => {
    const next = random(42);
    for (const route of agent.consoleRoutes.filter((r) => r.method === 'GET' && !r.path.includes(':'))) {
      if (route.path === '/api/activity/feed') continue; // an endless stream
      const canonical = concrete(route);
      expect((await consoleRequest(agent, { path: canonical, headers: withToken(agent) })).status, canonical).toBe(200);
      for (const spelling of variants(canonical, next)) {
        const response = await consoleRequest(agent, { path: spelling, headers: withToken(agent) });
        expect(response.status, spelling).toBe(404);
      }
    }
  });
});

describe('consoleAuth', () => {
  it('refuses with 401, not a server error, where the guard did not run', () => {
    const ctx = { state: {} } as Parameters<typeof consoleAuth>[0];
    let caught: unknown;
    try {
      consoleAuth(ctx);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ApiError);
    expect((caught as ApiError).status).toBe(401);
  });
});
