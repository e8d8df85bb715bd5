/** Starts a real agent in this process on ephemeral loopback ports with a fresh data dir. */
import { startAgent, type AgentOptions, type RunningAgent } from '../../agent/agent.js';
import { silentLogger } from '../../agent/log/logger.js';
import { makeTempDir } from './temp-dir.js';

export async function startTestAgent(options: Partial<AgentOptions> = {}): Promise<RunningAgent> {
  return startAgent({
    dataDir: options.dataDir ?? makeTempDir(),
    ports: { api: 0, audit: 0, console: 0, ...options.ports },
    log: options.log ?? silentLogger,
    ...(options.version ? { version: options.version } : {}),
    ...(options.localGroups ? { localGroups: options.localGroups } : {}),
    ...(options.auditStepMs !== undefined ? { auditStepMs: options.auditStepMs } : {}),
  });
}
