/**
 * `vigil domain` as an operator runs it (the compiled CLI): add with the password on standard
 * input, list, remove; offline (settings file, owner-only password file) and through a running
 * agent's console API. The password is never printed and never in settings.json.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runVigil } from '../helpers/cli.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { startTestAgent } from '../helpers/test-agent.js';

const ADD = [
  'domain',
  'add',
  '--name',
  'example.test',
  '--server',
  'ldap://127.0.0.1:3890',
  '--bind-dn',
  'cn=reader,dc=example,dc=test',
];

describe('vigil domain', () => {
  it('adds, lists and removes a domain with no agent running; the password stays in an owner-only file', async () => {
    const dataDir = path.join(makeTempDir(), 'data');
    const add = await runVigil(
      [...ADD, '--base-dn', 'dc=example,dc=test', '--polling-interval', '2', '--password-stdin', '--data-dir', dataDir],
      {
        stdin: 'bind-secret\n',
      },
    );
    expect(add.code, add.stderr).toBe(0);
    expect(add.stdout).not.toContain('bind-secret');
    const added = JSON.parse(add.stdout) as Record<string, unknown>;
    expect(added).toMatchObject({
      id: 'EXAMPLE',
      name: 'example.test',
      ldapServer: 'ldap://127.0.0.1:3890',
      userName: 'cn=reader,dc=example,dc=test',
      baseDn: 'dc=example,dc=test',
      pollingIntervalSeconds: 2,
      tls: 'starttls',
      isEnabled: true,
      hasPassword: true,
    });
    expect(fs.readFileSync(path.join(dataDir, 'settings.json'), 'utf8')).not.toContain('bind-secret');
    const file = path.join(dataDir, 'secrets', 'domain-passwords', Buffer.from('EXAMPLE').toString('hex'));
    expect(fs.readFileSync(file, 'utf8')).toBe('bind-secret');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);

    const list = await runVigil(['domain', 'list', '--data-dir', dataDir]);
    expect((JSON.parse(list.stdout) as Array<{ id: string }>).map((d) => d.id)).toEqual(['EXAMPLE']);

    const remove = await runVigil(['domain', 'remove', 'EXAMPLE', '--data-dir', dataDir]);
    expect(remove.code, remove.stderr).toBe(0);
    expect(JSON.parse(remove.stdout)).toEqual({ id: 'EXAMPLE', removed: true });
    expect(fs.existsSync(file)).toBe(false);
    const after = await runVigil(['domain', 'list', '--data-dir', dataDir]);
    expect(JSON.parse(after.stdout)).toEqual([]);
  }, 60_000);

  it('refuses a password on the command line and a missing server', async () => {
    const dataDir = makeTempDir();
    const noStdin = await runVigil([...ADD, '--data-dir', dataDir]);
    expect(noStdin.code).toBe(2);
    expect(noStdin.stderr).toMatch(/--password-stdin/);
    const noServer = await runVigil([
      'domain',
      'add',
      '--name',
      'x',
      '--bind-dn',
      'cn=x',
      '--password-stdin',
      '--data-dir',
      dataDir,
    ]);
    expect(noServer.code).toBe(2);
    expect(noServer.stderr).toMatch(/--server is required/);
  });

  it('goes through the running agent, which takes the domain at once', async () => {
    const dataDir = makeTempDir();
    const agent = await startTestAgent({ dataDir });
    try {
      const add = await runVigil([...ADD, '--password-stdin', '--data-dir', dataDir], { stdin: 'bind-secret' });
      expect(add.code, add.stderr).toBe(0);
      expect(add.stdout).not.toContain('bind-secret');
      expect(JSON.parse(add.stdout)).toMatchObject({ id: 'EXAMPLE', hasPassword: true, policies: [] });
      expect(agent.resources.domains.find('EXAMPLE')?.ldapServer).toBe('ldap://127.0.0.1:3890');
      const remove = await runVigil(['domain', 'remove', 'EXAMPLE', '--data-dir', dataDir]);
      expect(remove.code, remove.stderr).toBe(0);
      expect(agent.resources.domains.find('EXAMPLE')).toBeUndefined();
    } finally {
      await agent.stop();
    }
  }, 60_000);
});
