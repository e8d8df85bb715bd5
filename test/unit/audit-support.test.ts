/** Small parts of the audit API: local groups, the login limiter, the body reader, Basic parsing. */
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import type http from 'node:http';
import { describe, expect, it } from 'vitest';
import { UnixGroupFiles, platformGroups, GroupsUnsupportedError } from '../../agent/platform/local-groups.js';
import { LoginLimiter } from '../../agent/audit/login-limiter.js';
import { BodyTooLargeError, readBody } from '../../agent/http/read-body.js';
import { parseBasic } from '../../agent/audit/basic-auth.js';
import { parseQuery } from '../../agent/audit/query-params.js';
import { AUDIT_LIMITS } from '../../agent/audit/audit-limits.js';
import { makeTempDir } from '../helpers/temp-dir.js';

describe('local groups from /etc/group and /etc/passwd', () => {
  const dir = makeTempDir();
  const groupFile = path.join(dir, 'group');
  const passwdFile = path.join(dir, 'passwd');
  fs.writeFileSync(groupFile, '# comment\nwheel:x:10:alice,Bob\nstaff:x:50:\n');
  fs.writeFileSync(passwdFile, 'carol:x:1001:50::/home/carol:/bin/sh\n');
  const groups = new UnixGroupFiles({ groupFile, passwdFile, hostname: 'ws-01.corp.local' });

  it('lists listed members and primary-group members under every local spelling', async () => {
    expect(await groups.members('wheel')).toEqual(
      expect.arrayContaining(['alice', 'ws-01.corp.local\\alice', 'ws-01\\alice', '.\\alice', 'bob', 'ws-01\\bob']),
    );
    expect(await groups.members('WS-01\\staff')).toEqual([
      'carol',
      'ws-01.corp.local\\carol',
      'ws-01\\carol',
      '.\\carol',
    ]);
    expect(await groups.members('STAFF')).not.toBeNull(); // case-insensitive when unambiguous
  });

  it('knows no groups of other domains, and none that do not exist', async () => {
    expect(await groups.members('Domain\\Administrators')).toBeNull();
    expect(await groups.members('nosuch')).toBeNull();
  });

  it('says so on platforms whose groups it cannot read', async () => {
    await expect(platformGroups('win32').members('Administrators')).rejects.toBeInstanceOf(GroupsUnsupportedError);
    await expect(platformGroups('darwin').members('admin')).rejects.toBeInstanceOf(GroupsUnsupportedError);
    expect(platformGroups('linux')).toBeInstanceOf(UnixGroupFiles);
  });
});

describe('LoginLimiter', () => {
  it('blocks a user at an address after 10 failures in a minute, until the minute ends', () => {
    let now = 0;
    const limiter = new LoginLimiter(10, 30, 60_000, () => now);
    const fail = (address: string, user: string): void => {
      const start = limiter.begin(address, user);
      if (!start.ok) throw new Error('refused');
      start.attempt.fail();
    };
    for (let i = 0; i < 9; i++) fail('a', 'victim');
    expect(limiter.begin('a', 'victim').ok).toBe(true);
    expect(limiter.begin('a', 'victim')).toEqual({ ok: false, retryAfterSeconds: 60 });
    expect(limiter.begin('b', 'victim').ok).toBe(true);
    now = 59_500;
    expect(limiter.begin('a', 'victim')).toEqual({ ok: false, retryAfterSeconds: 1 });
    now = 60_000;
    expect(limiter.begin('a', 'victim').ok).toBe(true);
  });

  it('a success clears only its own user’s count', () => {
    const limiter = new LoginLimiter(2, 30, 60_000, () => 0);
    const run = (user: string, outcome: 'succeed' | 'fail'): void => {
      const start = limiter.begin('a', user);
      if (!start.ok) throw new Error('refused');
      start.attempt[outcome]();
    };
    run('user', 'fail');
    run('user', 'succeed');
    run('user', 'fail');
    run('user', 'succeed'); // one failure left: a second attempt may start
    run('victim', 'fail');
    run('victim', 'fail');
    run('user', 'succeed');
    expect(limiter.begin('a', 'victim').ok).toBe(false);
  });
});

describe('readBody', () => {
  const request = (chunks: Buffer[], headers: Record<string, string> = {}): http.IncomingMessage =>
    Object.assign(Readable.from(chunks), { headers }) as unknown as http.IncomingMessage;

  it('reads up to the limit', async () => {
    expect((await readBody(request([Buffer.alloc(10), Buffer.alloc(6)]), 16)).length).toBe(16);
  });

  it('stops at the limit when the body streams past it, and when Content-Length says so', async () => {
    await expect(readBody(request([Buffer.alloc(10), Buffer.alloc(7)]), 16)).rejects.toMatchObject({ status: 413 });
    await expect(readBody(request([], { 'content-length': '17' }), 16)).rejects.toBeInstanceOf(BodyTooLargeError);
  });
});

describe('Basic credentials and the query string', () => {
  it('parses user:password (the password may hold colons), refuses the rest', () => {
    const header = (s: string): string => `Basic ${Buffer.from(s).toString('base64')}`;
    expect(parseBasic(header('ENTERPRISE\\user:pa:ss'))).toEqual({ name: 'ENTERPRISE\\user', password: 'pa:ss' });
    expect(parseBasic(header('nocolon'))).toBeNull();
    expect(parseBasic('Bearer abc')).toBeNull();
    expect(parseBasic(undefined)).toBeNull();
  });

  it('takes format and count in any order, with the default page size', () => {
    expect(parseQuery('count=1500&format=json', true, AUDIT_LIMITS)).toEqual({
      format: 'json',
      count: 1500,
      ignored: [],
    });
    expect(parseQuery('', true, AUDIT_LIMITS)).toEqual({ format: null, count: 1000, ignored: [] });
    // A write defines no count: ignored like any parameter the API does not define.
    expect(parseQuery('count=5', false, AUDIT_LIMITS)).toEqual({ format: null, count: 1000, ignored: ['count'] });
    expect(() => parseQuery('count=1&count=2', true, AUDIT_LIMITS)).toThrow(/twice/);
    expect(() => parseQuery('who=alice&count=x', true, AUDIT_LIMITS)).toThrow(/count/);
  });
});
