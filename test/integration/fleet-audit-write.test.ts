/**
 * The audit API's conformance tests of audit-api-write.test.ts, on a fleet member: the same
 * requests, the same answers, served from the fleet's PostgreSQL database
 * (test/helpers/fleet-audit-backend.ts, docs/audit-api.md "Fleet").
 */
import { useFleetAuditBackend } from '../helpers/fleet-audit-backend.js';

useFleetAuditBackend();
await import('./audit-api-write.test.js');
