/** Audit users: validation, storage in settings.json, scrypt hashes, the verification cache. */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SettingsStore } from '../../agent/config/settings-store.js';
import { AuditUserError, AuditUserService } from '../../agent/users/audit-user-service.js';
import { hashPassword, verifyPassword } from '../../agent/users/password-hash.js';
import { MemoryChangeRecorder } from '../../agent/pipeline/change-recorder.js';
import { makeTempDir } from '../helpers/temp-dir.js';

const cheap = { N: 1024, r: 8, p: 1, keyLength: 32 };
const opened: Array<{ close(): unknown }> = [];
afterEach(async () => {
  for (const x of opened.splice(0)) await x.close();
});

async function setup(now = () => Date.now()) {
  const file = path.join(makeTempDir(), 'settings.json');
  const settings = await SettingsStore.open(file);
  const recorder = new MemoryChangeRecorder();
  const users = new AuditUserService(settings, { recorder, hashParams: cheap, now });
  opened.push(users, settings);
  return { file, settings, users, recorder };
}

describe('password hashes', () => {
  it('verify the right password only, with the stored parameters', async () => {
    const stored = await hashPassword('s3cret-pass', cheap);
    expect(stored).toMatchObject({ algorithm: 'scrypt', N: 1024, r: 8, p: 1, keyLength: 32 });
    expect(await verifyPassword('s3cret-pass', stored)).toBe(true);
    expect(await verifyPassword('s3cret-pasS', stored)).toBe(false);
    expect((await hashPassword('s3cret-pass', cheap)).salt).not.toBe(stored.salt);
  });

  it('the default cost is one of the OWASP scrypt settings (Password Storage Cheat Sheet)', async () => {
    const stored = await hashPassword('x'.repeat(8));
    const owasp = [
      [2 ** 17, 8, 1],
      [2 ** 16, 8, 2],
      [2 ** 15, 8, 3],
      [2 ** 14, 8, 5],
      [2 ** 13, 8, 10],
    ];
    expect(owasp).toContainEqual([stored.N, stored.r, stored.p]);
  });
});

describe('AuditUserService', () => {
  it('adds users to settings.json with a hash, never the password, and records the change', async () => {
    const { file, users, recorder } = await setup();
    const view = await users.add({
      name: 'ENTERPRISE\\NetwrixUser',
      roles: ['reader', 'contributor'],
      password: 'pa55word!',
    });
    expect(view).toMatchObject({ name: 'ENTERPRISE\\NetwrixUser', roles: ['reader', 'contributor'] });
    const text = fs.readFileSync(file, 'utf8');
    expect(text).not.toContain('pa55word!');
    const saved = JSON.parse(text).auditUsers[0];
    expect(saved.passwordHash.algorithm).toBe('scrypt');
    expect(saved.createdAt).toBe(saved.passwordChangedAt);
    expect(recorder.changes).toEqual([
      {
        actor: 'cli',
        action: 'Added',
        objectType: 'Audit user',
        what: 'ENTERPRISE\\NetwrixUser',
        id: 'ENTERPRISE\\NetwrixUser',
        details: [{ PropertyName: 'Roles', After: 'reader, contributor' }],
      },
    ]);
    expect(users.list().map((u) => u.name)).toEqual(['ENTERPRISE\\NetwrixUser']);
  });

  it.each([
    [{ name: 'a:b', roles: ['reader'], password: 'longenough' }, 'name', /":"/],
    [{ name: ' padded', roles: ['reader'], password: 'longenough' }, 'name', /space/],
    [{ name: '', roles: ['reader'], password: 'longenough' }, 'name', /empty/],
    [{ name: 'tab\tname', roles: ['reader'], password: 'longenough' }, 'name', /control/],
    [{ name: 'ok', roles: [], password: 'longenough' }, 'roles', /at least one role/],
    [{ name: 'ok', roles: ['admin'], password: 'longenough' }, 'roles', /unknown role "admin"/],
    [{ name: 'ok', roles: ['reader'], password: 'short' }, 'password', /at least 8/],
  ])('refuses %j, naming %s', async (input, field, message) => {
    const { users } = await setup();
    await expect(users.add(input)).rejects.toMatchObject({ field, message: expect.stringMatching(message) });
  });

  it('refuses a second user with the same name in another case; removes and re-adds', async () => {
    const { users } = await setup();
    await users.add({ name: 'Alice', roles: ['reader'], password: 'password1' });
    await expect(users.add({ name: 'alice', roles: ['reader'], password: 'password1' })).rejects.toBeInstanceOf(
      AuditUserError,
    );
    await users.remove('ALICE');
    expect(users.list()).toEqual([]);
    await expect(users.remove('alice')).rejects.toMatchObject({ kind: 'not_found' });
  });

  it('authenticates by name in any case, and refuses wrong passwords and unknown users', async () => {
    const { users } = await setup();
    await users.add({ name: 'Alice', roles: ['reader'], password: 'password1' });
    expect(await users.authenticate('alice', 'password1')).toMatchObject({ name: 'Alice' });
    expect(await users.authenticate('Alice', 'Password1')).toBeNull();
    expect(await users.authenticate('bob', 'password1')).toBeNull();
  });

  it('caches a successful check, and forgets it on password change and removal', async () => {
    const { users, settings } = await setup();
    await users.add({ name: 'alice', roles: ['reader'], password: 'password1' });
    expect(users.isCached('alice')).toBe(false);
    expect(await users.authenticate('alice', 'password1')).not.toBeNull();
    expect(users.isCached('alice')).toBe(true);
    await users.setPassword('alice', 'password2');
    expect(users.isCached('alice')).toBe(false);
    expect(await users.authenticate('alice', 'password1')).toBeNull();
    expect(await users.authenticate('alice', 'password2')).not.toBeNull();
    await users.remove('alice');
    expect(users.isCached('alice')).toBe(false);
    expect(await users.authenticate('alice', 'password2')).toBeNull();
    // A change made to the settings by anyone else also drops the cached entry.
    await users.add({ name: 'bob', roles: ['reader'], password: 'password3' });
    await users.authenticate('bob', 'password3');
    const other = await users.setRoles('bob', ['reader', 'contributor']);
    expect(other.roles).toEqual(['reader', 'contributor']);
    await settings.update((draft) => {
      draft.auditUsers[0]!.passwordHash.salt = Buffer.from('another salt').toString('base64');
    });
    expect(users.isCached('bob')).toBe(false);
    expect(await users.authenticate('bob', 'password3')).toBeNull();
  });

  it('a cached entry expires', async () => {
    let now = 1_000_000;
    const { users } = await setup(() => now);
    await users.add({ name: 'alice', roles: ['reader'], password: 'password1' });
    await users.authenticate('alice', 'password1');
    expect(users.isCached('alice')).toBe(true);
    now += 301_000;
    expect(users.isCached('alice')).toBe(false);
    expect(await users.authenticate('alice', 'password1')).not.toBeNull(); // checked again, still right
    expect(users.isCached('alice')).toBe(true);
  });

  it('settings refuse a hand-edited file with duplicate names, naming the field', async () => {
    const { settings, users } = await setup();
    await users.add({ name: 'alice', roles: ['reader'], password: 'password1' });
    await expect(
      settings.update((draft) => {
        draft.auditUsers.push({ ...draft.auditUsers[0]!, name: 'ALICE' });
      }),
    ).rejects.toMatchObject({ field: 'auditUsers[1].name' });
  });
});
