/**
 * Records in hand put into a fleet database the way a member forwards a batch: the same COPY text
 * the local store writes for the forwarder (agent/fleet/forward-copy.ts `COPY_LINES`), built here
 * in JavaScript, through the same staging and insert (`insertCopyText`). Tests use it to fill a
 * fleet database with records of several agents without running them;
 * test/integration/fleet-forward-encoding.test.ts proves it gives the forwarder's bytes.
 */
import type pg from 'pg';
import { insertCopyText } from '../../agent/fleet/forward-copy.js';
import { utcDay } from '../../agent/fleet/pg-schema.js';
import { rowToRecord } from '../../agent/store/audit-store.js';
import type { CanonicalRow } from '../../agent/store/record-chain.js';

/** A local record as forwarded: its canonical columns, its local seq and its chain value. */
export interface ForwardedRow extends CanonicalRow {
  seq: number;
  chain: Buffer | null;
}

/** One text value as COPY_LINES escapes it. */
function escapeText(value: string | null): string {
  if (value === null) return '\\N';
  return value.replace(/[\\\n\r\t]/g, (c) => ({ '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' })[c]!);
}

/** COPY_LINES's text for rows in hand. */
function copyLines(rows: readonly ForwardedRow[]): string {
  return rows
    .map(
      (r) =>
        [
          String(r.seq),
          escapeText(r.rid),
          String(r.when_ms),
          ...[r.who, r.action, r.what, r.location, r.object_type, r.data_source].map(escapeText),
          ...[r.plan_name, r.plan_id, r.item_name, r.workstation, r.details].map(escapeText),
          r.chain === null ? '\\N' : `\\\\x${r.chain.toString('hex')}`,
          utcDay(r.when_ms),
          escapeText(JSON.stringify(rowToRecord(r))),
        ].join('\t') + '\n',
    )
    .join('');
}

/** Inserts `rows` as `agentId`'s records, the way the forwarder inserts a batch. */
export async function insertRecords(pool: pg.Pool, agentId: string, rows: readonly ForwardedRow[]): Promise<void> {
  if (rows.length > 0) await insertCopyText(pool, agentId, copyLines(rows));
}
