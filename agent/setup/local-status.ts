/**
 * The local agent's own status as the agent API shows it (docs/agent-api.md): OK while running,
 * Error while activity records cannot be stored. The same object is returned while nothing
 * changes, because the agent's views are cached until it does.
 */
import type { ResourceStatus } from '../../shared/agent-resource.js';

export function localAgentStatus(writeProblem: () => string | null, startedAt: string): () => ResourceStatus {
  let status: ResourceStatus = { updatedAt: startedAt, type: 'OK', summary: 'Running', details: '' };
  return () => {
    const problem = writeProblem();
    const summary = problem === null ? 'Running' : 'Activity records cannot be stored';
    if (status.summary !== summary || status.details !== (problem ?? '')) {
      status = {
        updatedAt: new Date().toISOString(),
        type: problem === null ? 'OK' : 'Error',
        summary,
        details: problem ?? '',
      };
    }
    return status;
  };
}
