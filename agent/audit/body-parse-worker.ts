/**
 * Worker thread that parses large write bodies (security.md §0.11: parsing 8.8 MiB of XML
 * blocks a thread for about 0.6 s), so the agent's event loop keeps serving meanwhile.
 */
import { parentPort } from 'node:worker_threads';
import type { NewActivityRecord } from '../../shared/activity-record.js';
import { AuditError, EmptyResponse } from './audit-errors.js';
import { parseWriteBody } from './request-body.js';
import type { WireFormat } from './record-stream.js';

export interface ParseJob {
  id: number;
  bytes: Uint8Array;
  format: WireFormat;
  vendor: string;
}

export type ParseOutcome =
  | { id: number; records: NewActivityRecord[] }
  | { id: number; auditError: Pick<AuditError, 'status' | 'category' | 'code' | 'detail' | 'location'> }
  | { id: number; empty: { status: number; headers: Record<string, string>; reason: string } }
  | { id: number; failure: string };

const port = parentPort!;
port.on('message', (job: ParseJob) => {
  let outcome: ParseOutcome;
  try {
    outcome = { id: job.id, records: parseWriteBody(job.bytes, job.format, job.vendor) };
  } catch (error) {
    if (error instanceof AuditError) {
      const { status, category, code, detail, location } = error;
      outcome = { id: job.id, auditError: { status, category, code, detail, location } };
    } else if (error instanceof EmptyResponse) {
      outcome = { id: job.id, empty: { status: error.status, headers: error.headers, reason: error.message } };
    } else {
      outcome = { id: job.id, failure: (error as Error).message };
    }
  }
  port.postMessage(outcome);
});
