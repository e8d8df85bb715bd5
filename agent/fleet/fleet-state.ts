/**
 * The fleet database's state as a member sees it (docs/fleet.md "Failure behaviour"):
 *
 * - `connected`;
 * - `unreachable`: no answer, or one that passes by itself (a connection refused or timed out, a
 *   silent link, a server starting up or shutting down);
 * - `refused`: the database answered, and will go on refusing this agent until a person acts: a
 *   database this Vigil cannot use (not UTF-8, or a schema written by a newer Vigil), a wrong
 *   password or missing privilege, a database that does not exist, a record it cannot store.
 *
 * Records wait locally either way; the state says whether to look at the network or at the
 * database.
 */
import { FleetEncodingError, FleetSchemaTooNewError } from './pg-schema.js';

export type FleetState = 'connected' | 'unreachable' | 'refused';

/**
 * SQLSTATE classes (PostgreSQL "Appendix A. Error Codes") that a retry does not cure: data
 * exception, integrity constraint violation, invalid authorization, invalid catalog name (no
 * such database), syntax error or access rule violation (a missing privilege).
 */
const REFUSING_CLASSES = new Set(['22', '23', '28', '3D', '42']);

/** The state a failed attempt leaves the member in. */
export function failureState(error: unknown): 'unreachable' | 'refused' {
  if (error instanceof FleetSchemaTooNewError || error instanceof FleetEncodingError) return 'refused';
  // pg's DatabaseError carries the server's ErrorResponse: its severity and SQLSTATE.
  const { severity, code } = (error ?? {}) as { severity?: unknown; code?: unknown };
  if (typeof severity !== 'string' || typeof code !== 'string') return 'unreachable';
  return REFUSING_CLASSES.has(code.slice(0, 2)) ? 'refused' : 'unreachable';
}
