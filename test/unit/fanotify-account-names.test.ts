/**
 * uid → Who for attributed file records (docs/attribution.md): `HOST\name` from the passwd
 * file or the name services, `HOST\#uid` when no one knows the uid, and an account added
 * after the first lookup is found without a restart.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AccountNames, parsePasswd } from '../../agent/monitor/fanotify/account-names.js';
import { makeTempDir } from '../helpers/temp-dir.js';

describe('account names for attributed records', () => {
  const dir = makeTempDir('vigil-passwd-');
  const passwdFile = path.join(dir, 'passwd');
  afterEach(() => fs.rmSync(passwdFile, { force: true }));

  it('parses passwd lines and ignores comments and broken ones', () => {
    const table = parsePasswd(
      'root:x:0:0:root:/root:/bin/bash\n# note\nbroken\nalice:x:1001:1001::/home/alice:/bin/sh\n',
    );
    expect([...table]).toEqual([
      [0, 'root'],
      [1001, 'alice'],
    ]);
  });

  it('names local accounts, asks the name services next, and writes #uid for an unknown uid', () => {
    fs.writeFileSync(passwdFile, 'root:x:0:0::/root:/bin/sh\nalice:x:1001:1001::/home/alice:/bin/sh\n');
    const asked: number[] = [];
    const names = new AccountNames({
      hostname: 'WS1',
      passwdFile,
      lookup: (uid) => {
        asked.push(uid);
        return uid === 5000 ? 'ldapuser' : null;
      },
    });
    expect(names.who(1001)).toBe('WS1\\alice');
    expect(names.who(0)).toBe('WS1\\root');
    expect(names.who(5000)).toBe('WS1\\ldapuser');
    expect(names.who(4242)).toBe('WS1\\#4242');
    expect(names.who(4242)).toBe('WS1\\#4242');
    expect(asked).toEqual([5000, 4242]); // answers are cached, unknown ones too
  });

  it('finds an account added after the first lookup', () => {
    fs.writeFileSync(passwdFile, 'root:x:0:0::/root:/bin/sh\n');
    const names = new AccountNames({ hostname: 'WS1', passwdFile, lookup: () => null, negativeTtlMs: 0 });
    expect(names.who(1002)).toBe('WS1\\#1002');
    fs.writeFileSync(passwdFile, 'root:x:0:0::/root:/bin/sh\nbob:x:1002:1002::/home/bob:/bin/sh\n');
    expect(names.who(1002)).toBe('WS1\\bob');
  });
});
