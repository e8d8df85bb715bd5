/**
 * The local agent's own status as the agent API shows it (docs/agent-api.md): OK while running,
 * Error while activity records cannot be stored, Warning while its fleet database is unreachable
 * (docs/fleet.md). The same object is returned while nothing
 * changes, because the agent's views are cached until it does.
 */
import type { ResourceStatus } from '../../shared/agent-resource.js';

export function localAgentStatus(
  writeProblem: () => string | null,
  startedAt: string,
  fleetProblem: () => string | null = () => null,
): () => ResourceStatus {
  let status: ResourceStatus = { updatedAt: startedAt, type: 'OK', summary: 'Running', details: '' };
  return () => {
    const problem = writeProblem();
    const fleet = problem === null ? fleetProblem() : null;
    const summary =
      problem !== null
        ? 'Activity records cannot be stored'
        : fleet !== null
          ? 'Fleet database unreachable'
          : 'Running';
    const details = problem ?? fleet ?? '';
    if (status.summary !== summary || status.details !== details) {
      status = {
        updatedAt: new Date().toISOString(),
        type: problem !== null ? 'Error' : fleet !== null ? 'Warning' : 'OK',
        summary,
        details,
      };
    }
    return status;
  };
}
