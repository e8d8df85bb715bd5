/**
 * The data dir and its databases are owner-only whatever they were before the agent started,
 * and a data dir of another account is refused (docs/security.md, F10).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DataDirOwnerError } from '../../agent/agent.js';
import { writeFileDurably } from '../../agent/config/durable-file.js';
import { startTestAgent } from '../helpers/test-agent.js';
import { makeTempDir } from '../helpers/temp-dir.js';

const posix = process.platform !== 'win32';
const mode = (file: string): number => fs.statSync(file).mode & 0o777;
const databaseFiles = (dir: string): string[] => fs.readdirSync(dir).filter((name) => /\.db(-wal|-shm)?$/.test(name));

describe.runIf(posix)('data dir permissions', () => {
  it('a data dir made 0755 ahead of time becomes 0700, and every database file 0600, even ones made 0644 before', async () => {
    const dataDir = path.join(makeTempDir(), 'DATA');
    fs.mkdirSync(dataDir, { mode: 0o755 });
    fs.chmodSync(dataDir, 0o755);
    const first = await startTestAgent({ dataDir });
    await first.stop();
    // As an older version or a copy left them: readable by everyone.
    fs.chmodSync(dataDir, 0o755);
    for (const name of databaseFiles(dataDir)) fs.chmodSync(path.join(dataDir, name), 0o644);
    process.umask(0o022); // the usual umask: the agent must not depend on its caller's

    const agent = await startTestAgent({ dataDir });
    try {
      expect(mode(dataDir)).toBe(0o700);
      const names = databaseFiles(dataDir);
      expect(names).toEqual(expect.arrayContaining(['audit.db', 'audit-search.db', 'auth.db', 'audit.db-wal']));
      for (const name of names) expect([name, mode(path.join(dataDir, name))]).toEqual([name, 0o600]);
    } finally {
      await agent.stop();
    }
  });

  it.runIf(process.getuid?.() === 0)(
    'refuses a data dir that belongs to another account, with a clear message',
    async () => {
      const dataDir = path.join(makeTempDir(), 'DATA');
      fs.mkdirSync(dataDir, { mode: 0o700 });
      fs.chownSync(dataDir, 65534, 65534);
      const start = startTestAgent({ dataDir });
      await expect(start).rejects.toBeInstanceOf(DataDirOwnerError);
      await expect(start).rejects.toThrow(/belongs to another account \(uid 65534\)/);
      expect(fs.readdirSync(dataDir)).toEqual([]);
    },
  );

  it('a durable write never follows a planted symbolic link', async () => {
    const dir = makeTempDir();
    const target = path.join(dir, 'settings.json');
    const victim = path.join(dir, 'victim');
    fs.writeFileSync(victim, 'untouched');
    // An old-style predictable temporary name, planted as a link: the write must not go there.
    for (let n = 1; n <= 200; n++) fs.symlinkSync(victim, path.join(dir, `.settings.json.${process.pid}.${n}.tmp`));
    await writeFileDurably(target, '{"a":1}\n');
    expect(fs.readFileSync(target, 'utf8')).toBe('{"a":1}\n');
    expect(fs.readFileSync(victim, 'utf8')).toBe('untouched');
  });
});
