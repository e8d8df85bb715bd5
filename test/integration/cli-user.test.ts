/**
 * `vigil user` as an operator runs it (the compiled CLI): add, list, set-password, remove on a
 * data directory with no agent running; a user added this way logs in to the audit API once the
 * agent starts; with an agent running, the command explains that it needs the console API.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runVigil, spawnVigil, waitForReady } from '../helpers/cli.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { startTestAgent } from '../helpers/test-agent.js';
import { AuditClient } from '../helpers/audit-client.js';

describe('vigil user (no agent running)', () => {
  it('adds, lists, changes the password of and removes a user; settings.json holds only a hash', async () => {
    const dataDir = path.join(makeTempDir(), 'data');
    const add = await runVigil(
      [
        'user',
        'add',
        '--name',
        'ENTERPRISE\\siem',
        '--role',
        'reader',
        '--role',
        'contributor',
        '--password-stdin',
        '--data-dir',
        dataDir,
      ],
      { stdin: 'first-password\n' },
    );
    expect(add.code, add.stderr).toBe(0);
    expect(JSON.parse(add.stdout)).toMatchObject({ name: 'ENTERPRISE\\siem', roles: ['reader', 'contributor'] });
    const settingsText = fs.readFileSync(path.join(dataDir, 'settings.json'), 'utf8');
    expect(settingsText).not.toContain('first-password');
    expect(JSON.parse(settingsText).auditUsers[0].passwordHash.algorithm).toBe('scrypt');
    expect(fs.existsSync(path.join(dataDir, 'agent.lock'))).toBe(false); // the lock was released

    const list = await runVigil(['user', 'list', '--data-dir', dataDir]);
    expect(JSON.parse(list.stdout).map((u: { name: string }) => u.name)).toEqual(['ENTERPRISE\\siem']);

    const duplicate = await runVigil(
      ['user', 'add', '--name', 'enterprise\\SIEM', '--role', 'reader', '--password-stdin', '--data-dir', dataDir],
      { stdin: 'other-password' },
    );
    expect(duplicate.code).toBe(1);
    expect(duplicate.stderr).toMatch(/already exists \(name\)/);

    const before = JSON.parse(fs.readFileSync(path.join(dataDir, 'settings.json'), 'utf8')).auditUsers[0].passwordHash
      .hash;
    const change = await runVigil(
      ['user', 'set-password', '--name', 'enterprise\\siem', '--password-stdin', '--data-dir', dataDir],
      { stdin: 'second-password' },
    );
    expect(change.code, change.stderr).toBe(0);
    const after = JSON.parse(fs.readFileSync(path.join(dataDir, 'settings.json'), 'utf8')).auditUsers[0].passwordHash
      .hash;
    expect(after).not.toBe(before);

    // The agent started afterwards lets the user in with the new password only.
    const agent = await startTestAgent({ dataDir });
    try {
      const good = new AuditClient(agent, 'ENTERPRISE\\siem:second-password');
      const bad = new AuditClient(agent, 'ENTERPRISE\\siem:first-password');
      expect((await good.request({ path: 'activity_records/enum' })).status).toBe(200);
      expect((await bad.request({ path: 'activity_records/enum' })).status).toBe(401);
      good.close();
      bad.close();
    } finally {
      await agent.stop();
    }

    const remove = await runVigil(['user', 'remove', '--name', 'ENTERPRISE\\siem', '--data-dir', dataDir]);
    expect(remove.code, remove.stderr).toBe(0);
    expect(JSON.parse((await runVigil(['user', 'list', '--data-dir', dataDir])).stdout)).toEqual([]);
  });

  it('refuses mistakes with a message naming them', async () => {
    const dataDir = makeTempDir();
    const noStdin = await runVigil(['user', 'add', '--name', 'a', '--role', 'reader', '--data-dir', dataDir]);
    expect(noStdin.code).toBe(2);
    expect(noStdin.stderr).toMatch(/--password-stdin/);
    const shortPassword = await runVigil(
      ['user', 'add', '--name', 'a', '--role', 'reader', '--password-stdin', '--data-dir', dataDir],
      { stdin: 'short' },
    );
    expect(shortPassword.code).toBe(1);
    expect(shortPassword.stderr).toMatch(/at least 8 characters \(password\)/);
    const badRole = await runVigil(
      ['user', 'add', '--name', 'a', '--role', 'admin', '--password-stdin', '--data-dir', dataDir],
      { stdin: 'longenough' },
    );
    expect(badRole.stderr).toMatch(/unknown role "admin"/);
    const missing = await runVigil(['user', 'remove', '--name', 'ghost', '--data-dir', dataDir]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/no audit user named "ghost"/);
    expect((await runVigil(['user', 'frobnicate'])).code).toBe(2);
    expect(JSON.parse((await runVigil(['user', 'list', '--data-dir', path.join(dataDir, 'none')])).stdout)).toEqual([]);
  });
});

describe('vigil user (agent running)', () => {
  it('says it needs the console API and changes nothing', async () => {
    const dataDir = makeTempDir();
    const agent = spawnVigil([
      'agent',
      '--data-dir',
      dataDir,
      '--api-port',
      '0',
      '--audit-port',
      '0',
      '--console-port',
      '0',
    ]);
    try {
      await waitForReady(agent);
      const before = fs.readFileSync(path.join(dataDir, 'settings.json'), 'utf8');
      const add = await runVigil(
        ['user', 'add', '--name', 'x', '--role', 'reader', '--password-stdin', '--data-dir', dataDir],
        { stdin: 'longenough' },
      );
      expect(add.code).toBe(1);
      expect(add.stderr).toMatch(new RegExp(`agent \\(pid ${agent.pid}\\) is running.*console API`));
      expect(fs.readFileSync(path.join(dataDir, 'settings.json'), 'utf8')).toBe(before);
    } finally {
      agent.kill('SIGTERM');
      await new Promise((resolve) => agent.once('exit', resolve));
    }
  });
});
