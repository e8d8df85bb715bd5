/**
 * Worker thread of the console's "Verify now" (log-verification-service.ts): reading and
 * hashing a whole audit database and its log files takes seconds, so it never runs on the
 * agent's event loop.
 */
import { serveRequests } from '../util/worker-channel.js';
import { runVerification, type VerificationJob } from './log-verification.js';

serveRequests<VerificationJob, Awaited<ReturnType<typeof runVerification>>>((job) => runVerification(job));
