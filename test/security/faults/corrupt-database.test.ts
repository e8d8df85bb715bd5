/**
 * F13 (docs/security.md): the agent starts on a data directory whose audit database or token
 * database is damaged. It must refuse to start with one clear line naming the file (no stack
 * trace), exit non-zero, and leave the file byte for byte as it was: never start over with an
 * empty database in its place.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runVigil } from '../../helpers/cli.js';
import { makeTempDir } from '../../helpers/temp-dir.js';
import { startAgentProcess } from '../../helpers/agent-process.js';

const FREE_PORTS = ['--api-port', '0', '--audit-port', '0', '--console-port', '0'];
const sha256 = (file: string): string => crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');

let template: string;
beforeAll(async () => {
  // A data directory as a stopped agent leaves it (WAL checkpointed into the database files).
  const running = await startAgentProcess();
  template = running.dataDir;
  expect(await running.stop()).toBe(0);
}, 60_000);

function copyOfTemplate(): string {
  const dir = makeTempDir();
  fs.cpSync(template, dir, { recursive: true });
  return dir;
}

describe('F13 a damaged database at start', () => {
  it.each([
    ['audit.db', 'the audit database'],
    ['auth.db', 'the token database'],
  ])('%s with an overwritten header: refused in one line naming it, exit 1, the file untouched', async (name, what) => {
    const dataDir = copyOfTemplate();
    const file = path.join(dataDir, name);
    const fd = fs.openSync(file, 'r+');
    fs.writeSync(fd, Buffer.from('NOT A DATABASE!!'), 0, 16, 0);
    fs.closeSync(fd);
    const before = sha256(file);
    const size = fs.statSync(file).size;

    const result = await runVigil(['agent', '--data-dir', dataDir, ...FREE_PORTS], { timeoutMs: 30_000 });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe(''); // never ready
    const message = result.stderr.trim().split('\n').at(-1)!;
    expect(message).toContain(`${what} ${file} cannot be opened`);
    expect(message).toMatch(/not a database/);
    expect(message).toContain('left untouched');
    expect(result.stderr).not.toMatch(/\n\s+at /); // no stack trace
    expect(sha256(file)).toBe(before);
    expect(fs.statSync(file).size).toBe(size);
  });

  it('a data directory whose audit.db was replaced by a non-SQLite file: refused, the file untouched', async () => {
    const dataDir = copyOfTemplate();
    const file = path.join(dataDir, 'audit.db');
    fs.writeFileSync(file, 'this is a text file, not a database\n'.repeat(200));
    for (const extra of ['audit.db-wal', 'audit.db-shm']) fs.rmSync(path.join(dataDir, extra), { force: true });
    const before = sha256(file);
    const result = await runVigil(['agent', '--data-dir', dataDir, ...FREE_PORTS], { timeoutMs: 30_000 });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('the audit database');
    expect(sha256(file)).toBe(before);
  });
});
