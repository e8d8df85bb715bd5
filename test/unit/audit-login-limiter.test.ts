/**
 * The audit API's login limiter and password-check queue (docs/security.md F5): attempts are
 * counted before their password is checked, per user and per address; the queue of waiting
 * checks is bounded, and cached logins never wait in it.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { LoginLimiter } from '../../agent/audit/login-limiter.js';
import { SettingsStore } from '../../agent/config/settings-store.js';
import { AuditUserService, MAX_WAITING_CHECKS, PasswordChecksBusyError } from '../../agent/users/audit-user-service.js';
import { makeTempDir } from '../helpers/temp-dir.js';

describe('LoginLimiter reservations', () => {
  it('60 attempts started at once: only the first 10 may check a password, the rest wait for the window', () => {
    const limiter = new LoginLimiter(10, 30, 60_000, () => 0);
    const starts = Array.from({ length: 60 }, () => limiter.begin('127.0.0.1', 'victim'));
    expect(starts.filter((s) => s.ok)).toHaveLength(10);
    for (const start of starts.slice(10)) expect(start).toEqual({ ok: false, retryAfterSeconds: 60 });
  });

  it('an address guessing many user names is stopped at the address limit, for every name', () => {
    const limiter = new LoginLimiter(10, 30, 60_000, () => 0);
    for (let i = 0; i < 30; i++) {
      const start = limiter.begin('10.0.0.1', `user${i}`);
      expect(start.ok).toBe(true);
      if (start.ok) start.attempt.fail();
    }
    expect(limiter.begin('10.0.0.1', 'someone-else').ok).toBe(false);
    expect(limiter.retryAfter('10.0.0.1')).toBe(60);
    expect(limiter.begin('10.0.0.2', 'someone-else').ok).toBe(true);
  });

  it('a success or a cancelled attempt gives its reservation back; a failure keeps it', () => {
    const limiter = new LoginLimiter(1, 30, 60_000, () => 0);
    const first = limiter.begin('a', 'u');
    if (!first.ok) throw new Error('refused');
    expect(limiter.begin('a', 'u').ok).toBe(false); // reserved while it runs
    first.attempt.cancel();
    const second = limiter.begin('a', 'u');
    if (!second.ok) throw new Error('refused');
    second.attempt.succeed();
    const third = limiter.begin('a', 'u');
    if (!third.ok) throw new Error('refused');
    third.attempt.fail();
    third.attempt.succeed(); // an attempt ends once
    expect(limiter.begin('a', 'u').ok).toBe(false);
  });
});

describe('the password-check queue', () => {
  it(`refuses a login at once when ${MAX_WAITING_CHECKS} checks wait already; a cached login still passes`, async () => {
    const settings = await SettingsStore.open(path.join(makeTempDir(), 'settings.json'));
    const users = new AuditUserService(settings, { hashParams: { N: 2 ** 12, r: 8, p: 1, keyLength: 32 } });
    try {
      await users.add({ name: 'known', roles: ['reader'], password: 'correct horse battery' });
      expect(await users.authenticate('known', 'correct horse battery')).not.toBeNull(); // now cached
      const flood = Array.from({ length: 50 }, (_, i) =>
        users.authenticate(`unknown${i}`, 'guess').then(
          () => 'checked',
          (error: unknown) => (error instanceof PasswordChecksBusyError ? 'busy' : 'other'),
        ),
      );
      // Asked while the flood waits: answered from the cache, not queued behind it.
      expect(await users.authenticate('known', 'correct horse battery')).not.toBeNull();
      const outcomes = await Promise.all(flood);
      expect(outcomes.filter((o) => o === 'checked')).toHaveLength(2 + MAX_WAITING_CHECKS);
      expect(outcomes.filter((o) => o === 'busy')).toHaveLength(50 - 2 - MAX_WAITING_CHECKS);
    } finally {
      users.close();
      await settings.close();
    }
  });
});
