/**
 * F04 (docs/security.md): the disk under the audit database fills up while the agent
 * runs. The data directory sits on a small tmpfs that the test fills to the last byte. Writes
 * must fail with 500 ServerError (nothing acknowledged that was not committed), reads and
 * tokens already issued keep working, the process stays up, and writing resumes by itself once
 * space is freed. After the run the database passes `integrity_check` and holds every
 * acknowledged record.
 */
import path from 'node:path';
import fs from 'node:fs';
import Database from 'better-sqlite3';
import { afterAll, expect, it } from 'vitest';
import { addClient, FORM_HEADERS, startAgentProcess, type AgentProcess } from '../../helpers/agent-process.js';
import { runVigil } from '../../helpers/cli.js';
import { canMountTmpfs, mountTmpfs, type Tmpfs } from '../../helpers/tmpfs.js';

const PASSWORD = 'correct horse battery';
let disk: Tmpfs | null = null;
let agent: AgentProcess | null = null;
afterAll(async () => {
  await agent?.kill();
  disk?.unmount();
});

const batch = (label: string, n = 200): string =>
  JSON.stringify(
    Array.from({ length: n }, (_, i) => ({
      Who: `HOST\\${label}`,
      Action: 'Added',
      What: `/disk-full/${label}/${i}-${'x'.repeat(200)}`,
      When: '2026-11-20T10:00:00Z',
      Where: 'disk-full-host',
      ObjectType: 'File',
    })),
  );

it.skipIf(!canMountTmpfs)(
  'F04 audit database on a full disk: 500 ServerError for writes, reads and tokens keep working, writes resume once space is freed, nothing acknowledged lost',
  async () => {
    disk = mountTmpfs(48 * 1024 * 1024);
    const dataDir = path.join(disk!.dir, 'data');
    fs.mkdirSync(dataDir);
    fs.writeFileSync(path.join(dataDir, 'settings.json'), '{}\n');
    const added = await runVigil(
      ['user', 'add', '--name', 'auditor', '--role', 'reader', '--role', 'contributor', '--password-stdin'].concat([
        '--data-dir',
        dataDir,
      ]),
      { stdin: PASSWORD },
    );
    expect(added.code, added.stderr).toBe(0);
    agent = await startAgentProcess({ dataDir, logLevel: 'warn' });
    const client = await addClient(agent, ['read']);
    const token = JSON.parse(
      (
        await agent.api({
          method: 'POST',
          path: '/api/v1/token',
          headers: FORM_HEADERS,
          body: new URLSearchParams({
            grant_type: 'client_credentials',
            client_id: client.clientId,
            client_secret: client.clientSecret,
          }).toString(),
        })
      ).text,
    ) as { access_token: string };

    const acked = new Map<string, number>();
    const write = (label: string) =>
      agent!.audit({
        path: 'activity_records/?format=json',
        auth: `auditor:${PASSWORD}`,
        headers: { 'Content-Type': 'application/json' },
        body: batch(label),
      });
    for (let i = 0; i < 5; i++) {
      const res = await write(`before-${i}`);
      expect(res.status, res.text).toBe(200);
      acked.set(`HOST\\before-${i}`, 200);
    }

    disk!.fill();
    let refused = 0;
    for (let i = 0; i < 40 && refused < 3; i++) {
      const res = await write(`full-${i}`);
      if (res.status === 200) {
        // SQLite may still find free pages inside its files: that write is committed and counts.
        acked.set(`HOST\\full-${i}`, 200);
        continue;
      }
      expect(res.status).toBe(500);
      const error = (JSON.parse(res.text) as { ErrorList: Array<{ Category: string; Description: string }> })
        .ErrorList[0]!;
      expect(error.Category).toBe('ServerError');
      expect(error.Description).toMatch(/^0x80040C0A The audit database cannot be reached: .*(full|space)/i);
      expect(error.Description).not.toContain(dataDir); // no paths in the answer
      refused++;
    }
    expect(refused).toBeGreaterThan(0);

    // Reads, bearer checks and the console still answer while the disk is full.
    const read = await agent.audit({ path: 'activity_records/enum?format=json&count=10', auth: `auditor:${PASSWORD}` });
    expect(read.status, read.text).toBe(200);
    const agents = await agent.api({
      path: '/api/v1/agents',
      headers: { Authorization: `Bearer ${token.access_token}` },
    });
    expect(agents.status).toBe(200);
    expect((await agent.console({ path: '/api/status' })).status).toBe(200);
    // A new token needs a commit in auth.db on the same disk: a clean 500 server_error, or a 200 if it fit.
    const during = await agent.api({
      method: 'POST',
      path: '/api/v1/token',
      headers: FORM_HEADERS,
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: client.clientId,
        client_secret: client.clientSecret,
      }).toString(),
    });
    expect([200, 500]).toContain(during.status);
    if (during.status === 500) expect(JSON.parse(during.text)).toMatchObject({ error: 'server_error' });

    // Space comes back: the next writes succeed without a restart.
    disk!.release();
    let resumed = false;
    for (let i = 0; i < 20 && !resumed; i++) {
      const res = await write(`after-${i}`);
      if (res.status === 200) {
        acked.set(`HOST\\after-${i}`, 200);
        resumed = true;
      } else await new Promise((r) => setTimeout(r, 250));
    }
    expect(resumed).toBe(true);
    expect(agent.child.exitCode).toBe(null);
    expect(await agent.stop()).toBe(0);
    agent = null;

    const db = new Database(path.join(dataDir, 'audit.db'), { readonly: true, fileMustExist: true });
    try {
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
      for (const [who, n] of acked) {
        expect(db.prepare('SELECT count(*) FROM activity_records WHERE who = ?').pluck().get(who), who).toBe(n);
      }
      // Refused batches left nothing behind (all or nothing).
      const partial = db
        .prepare(
          "SELECT who, count(*) AS n FROM activity_records WHERE data_source = 'Vigil API' GROUP BY who HAVING n <> 200",
        )
        .all();
      expect(partial).toEqual([]);
    } finally {
      db.close();
    }
  },
  60_000,
);
