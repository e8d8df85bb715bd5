/**
 * Worker thread that parses large write bodies (docs/architecture.md: parsing 8.8 MiB of XML
 * blocks a thread for about 0.6 s), so the agent's event loop keeps serving meanwhile.
 */
import type { NewActivityRecord } from '../../shared/activity-record.js';
import { serveRequests } from '../util/worker-channel.js';
import { AuditError, EmptyResponse } from './audit-errors.js';
import { parseWriteBody } from './request-body.js';
import type { WireFormat } from './record-stream.js';

export interface ParseJob {
  bytes: Uint8Array;
  format: WireFormat;
  vendor: string;
}

export type ParseOutcome =
  | { records: NewActivityRecord[] }
  | { auditError: Pick<AuditError, 'status' | 'category' | 'code' | 'detail' | 'location'> }
  | { empty: { status: number; headers: Record<string, string>; reason: string } };

serveRequests<ParseJob, ParseOutcome>((job) => {
  try {
    return { records: parseWriteBody(job.bytes, job.format, job.vendor) };
  } catch (error) {
    if (error instanceof AuditError) {
      const { status, category, code, detail, location } = error;
      return { auditError: { status, category, code, detail, location } };
    }
    if (error instanceof EmptyResponse) {
      return { empty: { status: error.status, headers: error.headers, reason: error.message } };
    }
    throw error; // the channel reports its message as the request's failure
  }
});
