/**
 * `vigil user` as an operator runs it (the compiled CLI): add, list, set-password, remove on a
 * data directory with no agent running; a user added this way logs in to the audit API once the
 * agent starts; with an agent running, the command goes through the agent's console API.
 */
import fs from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runVigil, spawnAgentOnFreePorts, waitForReady } from '../helpers/cli.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { startTestAgent } from '../helpers/test-agent.js';
import { AuditClient } from '../helpers/audit-client.js';
import { AuditStore } from '../../agent/store/audit-store.js';

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
  it('goes through the console API: the change applies at once and is recorded as the CLI', async () => {
    const dataDir = makeTempDir();
    const agent = spawnAgentOnFreePorts(dataDir);
    try {
      const ready = await waitForReady(agent);
      const add = await runVigil(
        ['user', 'add', '--name', 'collector', '--role', 'reader', '--password-stdin', '--data-dir', dataDir],
        { stdin: 'first-password' },
      );
      expect(add.code, add.stderr).toBe(0);
      expect(JSON.parse(add.stdout)).toMatchObject({ name: 'collector', roles: ['reader'] });
      // The running agent wrote it (one writer of settings.json), and lets the user in at once.
      const saved = JSON.parse(fs.readFileSync(path.join(dataDir, 'settings.json'), 'utf8'));
      expect(saved.auditUsers.map((u: { name: string }) => u.name)).toEqual(['collector']);
      const auditUrl = new URL(ready['auditUrl']!);
      const enumerate = (password: string): Promise<number> => auditStatus(auditUrl, `collector:${password}`);
      expect(await enumerate('first-password')).toBe(200);

      const roles = await runVigil([
        'user',
        'set-roles',
        '--name',
        'collector',
        '--role',
        'reader,contributor',
        '--data-dir',
        dataDir,
      ]);
      expect(roles.code, roles.stderr).toBe(0);
      expect(JSON.parse(roles.stdout).roles).toEqual(['reader', 'contributor']);

      const change = await runVigil(
        ['user', 'set-password', '--name', 'collector', '--password-stdin', '--data-dir', dataDir],
        { stdin: 'second-password\n' },
      );
      expect(change.code, change.stderr).toBe(0);
      expect(await enumerate('first-password')).toBe(401);
      expect(await enumerate('second-password')).toBe(200);

      const mistake = await runVigil(
        ['user', 'add', '--name', 'COLLECTOR', '--role', 'reader', '--password-stdin', '--data-dir', dataDir],
        { stdin: 'longenough' },
      );
      expect(mistake.code).toBe(1);
      expect(mistake.stderr).toMatch(/already exists \(name\)/);

      const list = await runVigil(['user', 'list', '--data-dir', dataDir]);
      expect(JSON.parse(list.stdout).map((u: { name: string }) => u.name)).toEqual(['collector']);
      const remove = await runVigil(['user', 'remove', '--name', 'collector', '--data-dir', dataDir]);
      expect(remove.code, remove.stderr).toBe(0);
      expect(JSON.parse(remove.stdout)).toEqual({ removed: 'collector' });
      expect(await enumerate('second-password')).toBe(401);
    } finally {
      agent.kill('SIGTERM');
      await new Promise((resolve) => agent.once('exit', resolve));
    }
    // Every change was recorded in the self-audit as made by the CLI.
    const store = AuditStore.open({ file: path.join(dataDir, 'audit.db') });
    try {
      const rows = store.db
        .prepare("SELECT who, action, what FROM activity_records WHERE object_type = 'Audit user' ORDER BY seq")
        .all();
      expect(rows).toEqual([
        { who: 'cli', action: 'Added', what: 'collector' },
        { who: 'cli', action: 'Modified', what: 'collector' },
        { who: 'cli', action: 'Modified', what: 'collector' },
        { who: 'cli', action: 'Removed', what: 'collector' },
      ]);
    } finally {
      store.close();
    }
  });
});

/** Status of an audit API enumeration with Basic credentials (self-signed certificate accepted). */
function auditStatus(auditUrl: URL, credentials: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      {
        host: auditUrl.hostname,
        port: auditUrl.port,
        path: `${auditUrl.pathname}/activity_records/enum?count=1`,
        rejectUnauthorized: false,
        headers: { Authorization: `Basic ${Buffer.from(credentials).toString('base64')}` },
        timeout: 10_000,
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end();
  });
}
