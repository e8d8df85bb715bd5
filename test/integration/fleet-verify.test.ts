/**
 * `vigil verify --fleet`: each agent's chain as forwarded to the fleet database links from
 * record to record; a record changed or removed there is named.
 */
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../agent/log/logger.js';
import { AuditStore } from '../../agent/store/audit-store.js';
import { openFleetPool, writeFleetPassword } from '../../agent/fleet/fleet-connection.js';
import { migrateFleet } from '../../agent/fleet/pg-schema.js';
import { RecordForwarder } from '../../agent/fleet/record-forwarder.js';
import type { VerifyReport } from '../../agent/integrity/verify-report.js';
import { runVigil } from '../helpers/cli.js';
import { startPostgres, type PostgresServer } from '../helpers/postgres-server.js';
import { makeTempDir } from '../helpers/temp-dir.js';

describe('vigil verify --fleet', () => {
  let server: PostgresServer;
  let admin: pg.Pool;
  let dataDir: string;

  beforeAll(async () => {
    server = await startPostgres();
    admin = new pg.Pool({ connectionString: server.adminUrl.replace(/\/postgres$/, '/vigil'), max: 1 });
    dataDir = makeTempDir();
    writeFleetPassword(dataDir, server.password);
    fs.writeFileSync(
      path.join(dataDir, 'settings.json'),
      JSON.stringify({ fleet: { database: server.url, joinedAt: new Date().toISOString() } }),
    );
    const store = AuditStore.open({ file: path.join(dataDir, 'audit.db') });
    store.insertBatch(
      Array.from({ length: 20 }, (_, i) => ({
        Who: 'dave',
        Action: 'Added',
        What: `/srv/share/${i}.doc`,
        When: new Date().toISOString(),
        Where: 'ws-verify',
        ObjectType: 'File',
        DataSource: 'File Servers',
        ...(i % 3 === 0 ? { DetailList: [{ PropertyName: 'Size', After: String(i) }] } : {}),
      })),
    );
    store.close();
    const pool = openFleetPool({ database: server.url }, dataDir);
    const forwarder = new RecordForwarder({
      auditDb: path.join(dataDir, 'audit.db'),
      pool,
      database: server.url,
      agentId: 'AGENT-VERIFY',
      log: silentLogger,
      pollMs: 20,
      prepare: () => migrateFleet(pool),
    });
    await forwarder.start();
    await forwarder.waitForwarded(20, 15_000);
    await forwarder.stop();
    await pool.end();
  });
  afterAll(async () => {
    await admin?.end();
    await server?.stop();
  });

  async function verify(): Promise<{ code: number | null; report: VerifyReport }> {
    const result = await runVigil(['verify', '--fleet', '--data-dir', dataDir]);
    expect(result.stdout + result.stderr).not.toContain(server.password);
    return { code: result.code, report: JSON.parse(result.stdout) as VerifyReport };
  }

  it('finds the forwarded chain intact', async () => {
    const { code, report } = await verify();
    expect(report).toEqual({ ok: true, verified: [{ file: 'fleet:AGENT-VERIFY', from: 1, to: 20 }], problems: [] });
    expect(code).toBe(0);
  });

  it('names a record changed and a record removed in the fleet database', async () => {
    await admin.query("UPDATE vigil_records SET who = 'mallory' WHERE agent_id = 'AGENT-VERIFY' AND agent_seq = 5");
    await admin.query("DELETE FROM vigil_records WHERE agent_id = 'AGENT-VERIFY' AND agent_seq = 12");
    // The columns left alone, the JSON the audit API sends for them changed.
    await admin.query(
      "UPDATE vigil_records SET json = replace(json, 'dave', 'mallory') WHERE agent_id = 'AGENT-VERIFY' AND agent_seq = 8",
    );
    const { code, report } = await verify();
    expect(code).toBe(1);
    expect(report.ok).toBe(false);
    expect(report.problems.map((p) => [p.kind, p.line])).toEqual([
      ['changed', 5],
      ['changed', 8],
      ['removed', 13],
    ]);
    expect(report.problems[1]!.detail).toMatch(/JSON the audit API sends/);
  });
});
