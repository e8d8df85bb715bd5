/**
 * Unknown audit users are checked against a dummy hash that exists from the start, so the first
 * unknown-user login costs one scrypt run like every other, not two (docs/security.md F20).
 */
import crypto from 'node:crypto';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SettingsStore } from '../../agent/config/settings-store.js';
import { AuditUserService } from '../../agent/users/audit-user-service.js';
import { makeTempDir } from '../helpers/temp-dir.js';

afterEach(() => vi.restoreAllMocks());

describe('the dummy hash for unknown audit users', () => {
  it('the first unknown-user login runs exactly one scrypt, as a known user’s wrong password does', async () => {
    const settings = await SettingsStore.open(path.join(makeTempDir(), 'settings.json'));
    const params = { N: 2 ** 10, r: 8, p: 1, keyLength: 32 };
    const users = new AuditUserService(settings, { hashParams: params });
    try {
      await users.add({ name: 'known', roles: ['reader'], password: 'correct horse battery' });
      const scrypt = vi.spyOn(crypto, 'scrypt');
      expect(await users.authenticate('nobody', 'whatever password')).toBeNull();
      expect(scrypt).toHaveBeenCalledTimes(1);
      expect(await users.authenticate('known', 'wrong password')).toBeNull();
      expect(scrypt).toHaveBeenCalledTimes(2);
      expect(scrypt.mock.calls[0]![3]).toMatchObject({ N: params.N, r: params.r, p: params.p });
    } finally {
      users.close();
      await settings.close();
    }
  });
});
