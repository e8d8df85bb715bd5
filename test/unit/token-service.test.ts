/**
 * TokenService and ClientService with an injected clock and a real auth.db: lifetimes on both
 * sides of each boundary, rotation and reuse detection per family, revocation, reopening the
 * database (restart), housekeeping, and that only keyed hashes reach the disk.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryChangeRecorder } from '../../agent/pipeline/change-recorder.js';
import { ClientService } from '../../agent/auth/client-service.js';
import { CredentialHasher } from '../../agent/auth/keyed-hash.js';
import { TokenService } from '../../agent/auth/token-service.js';
import { TokenStore } from '../../agent/auth/token-store.js';
import { SettingsStore } from '../../agent/config/settings-store.js';
import { makeTempDir } from '../helpers/temp-dir.js';

const HOUR = 3600_000;
const DAY = 24 * HOUR;

interface World {
  dir: string;
  clock: { t: number };
  store: TokenStore;
  tokens: TokenService;
  clients: ClientService;
  settings: SettingsStore;
  changes: MemoryChangeRecorder;
  hasher: CredentialHasher;
}

const open: World[] = [];
afterEach(async () => {
  for (const world of open.splice(0)) {
    world.store.close();
    await world.settings.close();
  }
});

async function world(
  dir = makeTempDir(),
  pepper = crypto.randomBytes(32),
  t = Date.parse('2026-02-01T00:00:00Z'),
): Promise<World> {
  const clock = { t };
  const now = (): number => clock.t;
  const hasher = new CredentialHasher(pepper);
  const store = TokenStore.open({ file: path.join(dir, 'auth.db') });
  const settings = await SettingsStore.open(path.join(dir, 'settings.json'));
  const tokens = new TokenService({ store, hasher, now });
  const changes = new MemoryChangeRecorder();
  const clients = new ClientService({ settings, hasher, tokens, recorder: changes, now });
  const w = { dir, clock, store, tokens, clients, settings, changes, hasher };
  open.push(w);
  return w;
}

describe('access tokens', () => {
  it('are valid until 7 days − 1 ms and expired at 7 days', async () => {
    const w = await world();
    const issued = await w.tokens.issue('c1');
    expect(issued.expiresIn).toBe(604800);
    w.clock.t += 7 * DAY - 1;
    expect(w.tokens.checkAccessToken(issued.accessToken)).toMatchObject({ ok: true, identity: { clientId: 'c1' } });
    w.clock.t += 1;
    expect(w.tokens.checkAccessToken(issued.accessToken)).toEqual({ ok: false, reason: 'expired' });
  });

  it('are refused by shape before any lookup when they are not access tokens', async () => {
    const w = await world();
    const issued = await w.tokens.issue('c1');
    expect(w.tokens.checkAccessToken(issued.refreshToken)).toEqual({ ok: false, reason: 'malformed' });
    expect(w.tokens.checkAccessToken('garbage')).toEqual({ ok: false, reason: 'malformed' });
  });
});

describe('refresh tokens', () => {
  it('still refresh after a year and rotate on every use', async () => {
    const w = await world();
    const first = await w.tokens.issue('c1');
    w.clock.t += 365 * DAY;
    const second = await w.tokens.refresh('c1', first.refreshToken);
    expect(second.ok).toBe(true);
    if (!second.ok) return;
    expect(second.tokens.refreshToken).not.toBe(first.refreshToken);
    expect(w.tokens.checkAccessToken(second.tokens.accessToken).ok).toBe(true);
    const third = await w.tokens.refresh('c1', second.tokens.refreshToken);
    expect(third.ok).toBe(true);
  });

  it('on reuse revoke their whole family, and only it', async () => {
    const w = await world();
    const family = await w.tokens.issue('c1');
    const bystander = await w.tokens.issue('c1');
    const rotated = await w.tokens.refresh('c1', family.refreshToken);
    if (!rotated.ok) throw new Error('rotation failed');
    expect(await w.tokens.refresh('c1', family.refreshToken)).toEqual({ ok: false, reason: 'reused' });
    expect(w.tokens.checkAccessToken(rotated.tokens.accessToken)).toEqual({ ok: false, reason: 'revoked' });
    expect(w.tokens.checkAccessToken(family.accessToken)).toEqual({ ok: false, reason: 'revoked' });
    expect(await w.tokens.refresh('c1', rotated.tokens.refreshToken)).toEqual({ ok: false, reason: 'revoked' });
    expect(w.tokens.checkAccessToken(bystander.accessToken).ok).toBe(true);
    expect((await w.tokens.refresh('c1', bystander.refreshToken)).ok).toBe(true);
  });

  it('two parallel refreshes with one token: one rotates, the other is reuse and revokes the family', async () => {
    const w = await world();
    const issued = await w.tokens.issue('c1');
    const [a, b] = await Promise.all([
      w.tokens.refresh('c1', issued.refreshToken),
      w.tokens.refresh('c1', issued.refreshToken),
    ]);
    expect([a.ok, b.ok]).toEqual([true, false]);
    expect(b).toEqual({ ok: false, reason: 'reused' });
    if (a.ok) expect(w.tokens.checkAccessToken(a.tokens.accessToken)).toEqual({ ok: false, reason: 'revoked' });
  });

  it('are bound to their client', async () => {
    const w = await world();
    const issued = await w.tokens.issue('c1');
    expect(await w.tokens.refresh('c2', issued.refreshToken)).toEqual({ ok: false, reason: 'other_client' });
    expect((await w.tokens.refresh('c1', issued.refreshToken)).ok).toBe(true);
  });
});

describe('revocation, restart, housekeeping, storage', () => {
  it('group commit: 500 concurrent grants all land, each with distinct tokens', async () => {
    const w = await world();
    const all = await Promise.all(Array.from({ length: 500 }, (_, i) => w.tokens.issue(`c${i % 7}`)));
    expect(new Set(all.map((t) => t.accessToken)).size).toBe(500);
    for (const t of all) expect(w.tokens.checkAccessToken(t.accessToken).ok).toBe(true);
  });

  it('revoking a client revokes all its tokens and no one else’s', async () => {
    const w = await world();
    const a = await w.tokens.issue('a');
    const b = await w.tokens.issue('b');
    expect(w.tokens.revokeClient('a')).toBe(2);
    expect(w.tokens.checkAccessToken(a.accessToken)).toEqual({ ok: false, reason: 'revoked' });
    expect(await w.tokens.refresh('a', a.refreshToken)).toEqual({ ok: false, reason: 'revoked' });
    expect(w.tokens.checkAccessToken(b.accessToken).ok).toBe(true);
  });

  it('tokens survive closing and reopening the database with the same pepper', async () => {
    const dir = makeTempDir();
    const pepper = crypto.randomBytes(32);
    const before = await world(dir, pepper);
    const issued = await before.tokens.issue('c1');
    const rotated = await before.tokens.issue('c1');
    await before.tokens.refresh('c1', rotated.refreshToken);
    before.store.close();
    await before.settings.close();
    open.splice(open.indexOf(before), 1);

    const after = await world(dir, pepper);
    expect(after.tokens.checkAccessToken(issued.accessToken).ok).toBe(true);
    expect((await after.tokens.refresh('c1', issued.refreshToken)).ok).toBe(true);
    expect(await after.tokens.refresh('c1', rotated.refreshToken)).toEqual({ ok: false, reason: 'reused' });
    // with another pepper nothing matches: the hashes are keyed
    const foreign = new TokenService({
      store: after.store,
      hasher: new CredentialHasher(crypto.randomBytes(32)),
      now: () => after.clock.t,
    });
    expect(foreign.checkAccessToken(issued.accessToken)).toEqual({ ok: false, reason: 'unknown' });
  });

  it('housekeeping forgets long-expired access tokens but keeps used refresh tokens for reuse detection', async () => {
    const w = await world();
    const issued = await w.tokens.issue('c1');
    const rotated = await w.tokens.refresh('c1', issued.refreshToken);
    expect(rotated.ok).toBe(true);
    w.clock.t += 40 * DAY;
    expect(w.tokens.purge(30 * DAY)).toBeGreaterThanOrEqual(1);
    expect(w.tokens.checkAccessToken(issued.accessToken)).toEqual({ ok: false, reason: 'unknown' });
    expect(await w.tokens.refresh('c1', issued.refreshToken)).toEqual({ ok: false, reason: 'reused' });
  });

  it('writes no token or secret to disk, only keyed hashes', async () => {
    const w = await world();
    const client = await w.clients.add({ name: 'disk check', permissions: ['read'] }, 'cli');
    const issued = await w.tokens.issue(client.clientId);
    w.store.close();
    await w.settings.close();
    open.splice(open.indexOf(w), 1);
    const everything = fs
      .readdirSync(w.dir)
      .map((name) => fs.readFileSync(path.join(w.dir, name)).toString('latin1'))
      .join('\n');
    for (const secret of [issued.accessToken, issued.refreshToken, client.clientSecret]) {
      expect(everything).not.toContain(secret);
      expect(everything).not.toContain(secret.slice(7, 30));
    }
    expect(everything).toContain(client.clientId);
  });
});

describe('client secrets', () => {
  it('authenticate until 72 h − 1 ms and report expiry at 72 h; unknown and wrong stay distinct from expired', async () => {
    const w = await world();
    const client = await w.clients.add({ name: 'app', permissions: ['read'] }, 'cli');
    expect(w.clients.authenticate(client.clientId, client.clientSecret).ok).toBe(true);
    w.clock.t += 72 * HOUR - 1;
    expect(w.clients.authenticate(client.clientId, client.clientSecret).ok).toBe(true);
    w.clock.t += 1;
    expect(w.clients.authenticate(client.clientId, client.clientSecret)).toMatchObject({
      ok: false,
      reason: 'secret_expired',
    });
    expect(w.clients.authenticate(client.clientId, 'vgl_cs_wrong')).toMatchObject({
      ok: false,
      reason: 'wrong_secret',
    });
    expect(w.clients.authenticate('0'.repeat(32), client.clientSecret)).toMatchObject({
      ok: false,
      reason: 'unknown_client',
    });
  });

  it('report every change, without the secret, to the recorder', async () => {
    const w = await world();
    const client = await w.clients.add({ name: 'recorded', permissions: ['read'] }, 'cli');
    await w.clients.setPermissions(client.clientId, ['read', 'modifyAgent'], 'console');
    await w.clients.regenerateSecret(client.clientId, 'console');
    await w.clients.revoke(client.clientId, 'client:other');
    expect(w.changes.changes.map((c) => [c.actor, c.action, c.objectType, c.what])).toEqual([
      ['cli', 'Added', 'Client application', 'recorded'],
      ['console', 'Modified', 'Client application', 'recorded'],
      ['console', 'Modified', 'Client application', 'recorded'],
      ['client:other', 'Removed', 'Client application', 'recorded'],
    ]);
    expect(JSON.stringify(w.changes.changes)).not.toContain('vgl_cs_');
  });

  it('leave settings unchanged when a change is refused', async () => {
    const w = await world();
    await w.clients.add({ name: 'one', permissions: ['read'] }, 'cli');
    const before = fs.readFileSync(path.join(w.dir, 'settings.json'), 'utf8');
    await expect(w.clients.add({ name: 'ONE', permissions: ['read'] }, 'cli')).rejects.toMatchObject({
      kind: 'conflict',
    });
    await expect(w.clients.add({ name: 'two', permissions: ['nope'] }, 'cli')).rejects.toMatchObject({
      kind: 'invalid',
      field: 'permissions[0]',
    });
    expect(fs.readFileSync(path.join(w.dir, 'settings.json'), 'utf8')).toBe(before);
    expect(w.changes.changes).toHaveLength(1);
  });
});
