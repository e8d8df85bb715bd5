/**
 * The audit API's published limits (docs/audit-api.md "Limits"). Existing clients know
 * a default page of 1,000 and no maximum; Vigil enforces one so a single request cannot hold
 * an unbounded page in memory.
 */
export interface AuditLimits {
  defaultCount: number;
  maxCount: number;
  /** Bodies of search and enum requests. */
  readBodyBytes: number;
  /** Bodies of write requests (the record count is limited too: record-input.ts). */
  writeBodyBytes: number;
  /** Stored bytes of the records in one slice of a page (record-stream.ts, pageSlices). */
  sliceBytes: number;
}

export const AUDIT_LIMITS: AuditLimits = {
  defaultCount: 1000,
  maxCount: 10_000,
  readBodyBytes: 64 * 1024,
  writeBodyBytes: 4 * 1024 * 1024,
  sliceBytes: 8 * 1024 * 1024,
};
