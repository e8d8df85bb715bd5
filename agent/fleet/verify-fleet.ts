/**
 * `vigil verify --fleet` (docs/fleet.md, docs/integrity.md): checks each agent's hash chain as
 * forwarded to the fleet database. The records of one agent, in its own `seq` order
 * (`agent_seq`), must each link to the one before: SHA-256(predecessor's chain || canonical
 * record) equals the stored chain (agent/store/record-chain.ts, the same functions as the local
 * check), and the JSON stored with each for the audit API's pages must be the record's
 * (pg-audit-rows.ts). An agent's first record there is taken as it stands when its predecessor
 * is not in the fleet database (joined later, or removed by retention). The signed checkpoints stay in each
 * agent's SQLite, so truncation and a chain recomputed end to end are found by `vigil verify` on
 * the agent itself.
 */
import type pg from 'pg';
import { GENESIS, canonicalRecord, nextChain, rowValues, type CanonicalRow } from '../store/record-chain.js';
import type { Problem, VerifiedRange, VerifyReport } from '../integrity/verify-report.js';
import { PG_RECORD_JSON_SQL } from './pg-audit-rows.js';

const PAGE = 5_000;

/** A fleet row as node-postgres returns it: bigint columns arrive as text. */
interface FleetRow extends Omit<CanonicalRow, 'when_ms'> {
  agent_seq: string;
  when_ms: string;
  chain: Buffer | null;
  /** The stored JSON the audit API serves differs from the record's columns. */
  json_differs: boolean;
}

function canonical(row: FleetRow): string {
  return canonicalRecord(rowValues({ ...row, when_ms: Number(row.when_ms) }));
}

/** Checks one agent's chain, a page at a time (memory stays bounded whatever the fleet's size). */
async function verifyAgent(
  pool: pg.Pool,
  agentId: string,
): Promise<{ problems: Problem[]; verified: VerifiedRange[] }> {
  const file = `fleet:${agentId}`;
  const problems: Problem[] = [];
  const verified: VerifiedRange[] = [];
  let previous: Buffer | null = null;
  let previousSeq = 0;
  let rangeStart: number | null = null;
  let after = -1;
  for (;;) {
    const { rows } = await pool.query<FleetRow>(
      `SELECT agent_seq, rid, when_ms, who, action, what, location, object_type, data_source,
              plan_name, plan_id, item_name, workstation, details, chain,
              coalesce(json <> ${PG_RECORD_JSON_SQL}, false) AS json_differs
         FROM vigil_records WHERE agent_id = $1 AND agent_seq > $2 ORDER BY agent_seq LIMIT $3`,
      [agentId, after, PAGE],
    );
    for (const row of rows) {
      const seq = Number(row.agent_seq);
      const chain = row.chain ?? Buffer.alloc(0);
      // The first record links to GENESIS when it is the agent's first; otherwise it is the anchor.
      const predecessor: Buffer | null = previous ?? (seq === 1 ? GENESIS : null);
      const links = predecessor === null || nextChain(predecessor, canonical(row)).equals(chain);
      const gap = previous !== null && seq !== previousSeq + 1;
      // Columns that link but stored JSON that differs: the audit API's pages send that JSON.
      const detail = !links
        ? gap
          ? `records of ${agentId} just before seq ${seq} are missing from the fleet database`
          : `record seq ${seq} of ${agentId} no longer matches its chain value`
        : row.json_differs
          ? `the JSON the audit API sends for record seq ${seq} of ${agentId} no longer matches the record`
          : null;
      if (detail === null) rangeStart ??= seq;
      else {
        problems.push({ file, rid: row.rid, line: seq, kind: !links && gap ? 'removed' : 'changed', detail });
        if (rangeStart !== null) verified.push({ file, from: rangeStart, to: previousSeq });
        rangeStart = null;
      }
      previous = chain;
      previousSeq = seq;
    }
    if (rows.length < PAGE) break;
    after = Number(rows[rows.length - 1]!.agent_seq);
  }
  if (rangeStart !== null) verified.push({ file, from: rangeStart, to: previousSeq });
  return { problems, verified };
}

export async function verifyFleet(pool: pg.Pool): Promise<VerifyReport> {
  const { rows } = await pool.query<{ agent_id: string }>(
    'SELECT DISTINCT agent_id FROM vigil_records ORDER BY agent_id',
  );
  const report: VerifyReport = { ok: true, verified: [], problems: [] };
  for (const { agent_id: agentId } of rows) {
    const checked = await verifyAgent(pool, agentId);
    report.verified.push(...checked.verified);
    report.problems.push(...checked.problems);
  }
  report.ok = report.problems.length === 0;
  return report;
}
