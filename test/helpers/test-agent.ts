/**
 * Starts a real agent in this process on ephemeral loopback ports with a fresh data dir. The
 * first-run host watches the user folders of a fresh temporary home, never the real one.
 *
 * A test sees what the tray app sees (`RunningAgent`) and, beside it, the parts inside
 * (`AgentInternals`: settings, stores, services) that product code never reaches into.
 *
 * Actor attribution is off unless `activity.attribution` says `auto`: fanotify never reports
 * the agent's own process, and here the test that writes the files is that process.
 */
import { launchAgent, type AgentInternals, type AgentOptions, type RunningAgent } from '../../agent/agent.js';
import { silentLogger } from '../../agent/log/logger.js';
import { makeTempDir } from './temp-dir.js';

export type TestAgent = RunningAgent & AgentInternals;

export async function startTestAgent(options: Partial<AgentOptions> = {}): Promise<TestAgent> {
  const { running, internals } = await launchAgent({
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
    ...(options.connectionLimits ? { connectionLimits: options.connectionLimits } : {}),
    ...(options.headersTimeoutMs !== undefined ? { headersTimeoutMs: options.headersTimeoutMs } : {}),
    ...(options.auditLimits ? { auditLimits: options.auditLimits } : {}),
    ...(options.fleet ? { fleet: options.fleet } : {}),
  });
  return { ...running, ...internals };
}
