/**
 * Lifetimes with an injected clock (docs/authentication.md): client secret 72 h from generation,
 * access token 7 days, refresh token never — on both sides of each boundary — and tokens that
 * survive an agent restart, revoked ones staying revoked (docs/security.md, B12).
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { TestAgent } from '../helpers/test-agent.js';
import {
  apiRequest,
  bearer,
  enrolClient,
  obtainTokens,
  tokenRequest,
  type ApiResponse,
} from '../helpers/api-client.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { startTestAgent } from '../helpers/test-agent.js';

const HOUR = 3600_000;
const DAY = 24 * HOUR;

/** A clock the test moves by hand. */
function testClock(start = Date.parse('2026-01-05T09:00:00Z')): { now: () => number; advance: (ms: number) => void } {
  let t = start;
  return { now: () => t, advance: (ms) => (t += ms) };
}

const running: TestAgent[] = [];
afterEach(async () => {
  for (const agent of running.splice(0)) await agent.stop();
});

async function start(options: Parameters<typeof startTestAgent>[0]): Promise<TestAgent> {
  const agent = await startTestAgent(options);
  running.push(agent);
  return agent;
}

const agentsWith = (agent: TestAgent, token: string): Promise<ApiResponse> =>
  apiRequest(agent, { path: '/api/v1/agents', headers: bearer(token) });

describe('client secret: 72 hours from generation', () => {
  it('obtains tokens at 72 h − 1 s and is refused with "expired" at 72 h; a new secret works again', async () => {
    const clock = testClock();
    const agent = await start({ now: clock.now });
    const client = await enrolClient(agent, ['read']);
    const request = (secret: string): Promise<ApiResponse> =>
      tokenRequest(agent, { grant_type: 'client_credentials', client_id: client.clientId, client_secret: secret });

    clock.advance(72 * HOUR - 1000);
    expect((await request(client.clientSecret)).status).toBe(200);
    clock.advance(1000);
    const expired = await request(client.clientSecret);
    expect(expired.status).toBe(401);
    expect(expired.json?.['error']).toBe('invalid_client');
    expect(expired.json?.['error_description']).toMatch(/secret expired/);
    expect(expired.headers['www-authenticate']).toMatch(/^Basic /);
    expect(agent.auth.clients.list()[0]).toMatchObject({ secretExpired: true });

    const fresh = await agent.auth.clients.regenerateSecret(client.clientId, 'console');
    expect(Date.parse(fresh.secretExpiresAt)).toBe(clock.now() + 72 * HOUR);
    expect((await request(fresh.clientSecret)).status).toBe(200);
  });

  it('a wrong secret says nothing about expiry', async () => {
    const clock = testClock();
    const agent = await start({ now: clock.now });
    const client = await enrolClient(agent, ['read']);
    const other = await enrolClient(agent, ['read']);
    clock.advance(100 * HOUR);
    const response = await tokenRequest(agent, {
      grant_type: 'client_credentials',
      client_id: client.clientId,
      client_secret: other.clientSecret,
    });
    expect(response.json?.['error']).toBe('invalid_client');
    expect(response.json?.['error_description']).not.toMatch(/expired/);
  });
});

describe('access token: 7 days; refresh token: never', () => {
  it('accepts the access token until 7 days − 1 s and refuses it at 7 days with invalid_token', async () => {
    const clock = testClock();
    const agent = await start({ now: clock.now });
    const tokens = await obtainTokens(agent, await enrolClient(agent, ['read']));
    clock.advance(7 * DAY - 1000);
    expect((await agentsWith(agent, tokens.access_token)).status).toBe(200);
    clock.advance(1000);
    const expired = await agentsWith(agent, tokens.access_token);
    expect(expired.status).toBe(401);
    expect(expired.headers['www-authenticate']).toMatch(
      /error="invalid_token", error_description="the access token expired/,
    );
  });

  it('refreshes after a year, long after the secret expired, and the new access token works', async () => {
    const clock = testClock();
    const agent = await start({ now: clock.now });
    const client = await enrolClient(agent, ['read']);
    const tokens = await obtainTokens(agent, client);
    clock.advance(366 * DAY);
    const refreshed = await tokenRequest(agent, {
      grant_type: 'refresh_token',
      client_id: client.clientId,
      refresh_token: tokens.refresh_token,
    });
    expect(refreshed.status).toBe(200);
    expect((await agentsWith(agent, refreshed.json?.['access_token'] as string)).status).toBe(200);
    // with the expired secret sent along, the refresh is refused: a secret sent must be valid
    const withOldSecret = await tokenRequest(agent, {
      grant_type: 'refresh_token',
      client_id: client.clientId,
      client_secret: client.clientSecret,
      refresh_token: refreshed.json?.['refresh_token'] as string,
    });
    expect(withOldSecret.json?.['error']).toBe('invalid_client');
  });
});

describe('restart', () => {
  it('keeps issued tokens valid and revoked ones revoked', async () => {
    const dataDir = makeTempDir();
    const first = await startTestAgent({ dataDir });
    const keeper = await enrolClient(first, ['read'], 'keeper');
    const goner = await enrolClient(first, ['read'], 'goner');
    const kept = await obtainTokens(first, keeper);
    const lost = await obtainTokens(first, goner);
    const agentId = first.agentId;
    await first.auth.clients.revoke(goner.clientId, 'console');
    await first.stop();

    const second = await start({ dataDir });
    expect(second.agentId).toBe(agentId);
    expect((await agentsWith(second, kept.access_token)).status).toBe(200);
    expect((await agentsWith(second, lost.access_token)).status).toBe(401);
    const refreshed = await tokenRequest(second, {
      grant_type: 'refresh_token',
      client_id: keeper.clientId,
      refresh_token: kept.refresh_token,
    });
    expect(refreshed.status).toBe(200);
    const again = await tokenRequest(second, {
      grant_type: 'client_credentials',
      client_id: keeper.clientId,
      client_secret: keeper.clientSecret,
    });
    expect(again.status).toBe(200);
  });
});
