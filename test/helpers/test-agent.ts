/**
 * Starts a real agent in this process on ephemeral loopback ports with a fresh data dir. The
 * first-run host watches the user folders of a fresh temporary home, never the real one.
 * Actor attribution is off unless `activity.attribution` says `auto`: fanotify never reports
 * the agent's own process, and here the test that writes the files is that process.
 */
import { startAgent, type AgentOptions, type RunningAgent } from '../../agent/agent.js';
import { silentLogger } from '../../agent/log/logger.js';
import { makeTempDir } from './temp-dir.js';

export async function startTestAgent(options: Partial<AgentOptions> = {}): Promise<RunningAgent> {
  return startAgent({
    dataDir: options.dataDir ?? makeTempDir(),
    ports: { api: 0, audit: 0, console: 0, ...options.ports },
    log: options.log ?? silentLogger,
    firstRunHome: options.firstRunHome ?? makeTempDir('vigil-home-'),
    activity: { attribution: 'off', ...options.activity },
    ...(options.version ? { version: options.version } : {}),
    ...(options.now ? { now: options.now } : {}),
    ...(options.changeRecorder ? { changeRecorder: options.changeRecorder } : {}),
    ...(options.localGroups ? { localGroups: options.localGroups } : {}),
    ...(options.auditStepMs !== undefined ? { auditStepMs: options.auditStepMs } : {}),
    ...(options.agentChecks ? { agentChecks: options.agentChecks } : {}),
    ...(options.headersTimeoutMs !== undefined ? { headersTimeoutMs: options.headersTimeoutMs } : {}),
  });
}
