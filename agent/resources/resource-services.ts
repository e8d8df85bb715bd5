/**
 * The services that change the agent's resources, built once per agent. The agent API's routes
 * use them, and so can the console ("enable or disable a host or an output, add a folder to
 * watch"): docs/agent-api.md ("Services for other front ends") lists their methods.
 */
import type { ChangeRecorder } from '../pipeline/change-recorder.js';
import type { SettingsStore } from '../config/settings-store.js';
import type { DomainPasswords } from '../config/domain-passwords.js';
import type { Logger } from '../log/logger.js';
import { AgentReachability, type ReachabilityOptions } from './agent-reachability.js';
import { AgentService } from './agent-service.js';
import { DomainService } from './domain-service.js';
import { HostService } from './host-service.js';
import { OutputService } from './output-service.js';
import { PolicyService } from './policy-service.js';

export interface ResourceServices {
  hosts: HostService;
  outputs: OutputService;
  agents: AgentService;
  domains: DomainService;
  policies: PolicyService;
  /** Background reachability checks of the registered agents. */
  reachability: AgentReachability;
}

export function startResourceServices(deps: {
  settings: SettingsStore;
  recorder: ChangeRecorder;
  log: Logger;
  /** Where directory domains' bind passwords are kept (never settings.json). */
  domainPasswords: DomainPasswords;
  reachability?: ReachabilityOptions;
}): ResourceServices {
  const { settings, recorder } = deps;
  const reachability = new AgentReachability(settings, deps.log.child('agents'), deps.reachability);
  reachability.start();
  return {
    hosts: new HostService({ settings, recorder }),
    outputs: new OutputService({ settings, recorder }),
    agents: new AgentService({ settings, recorder }),
    domains: new DomainService({ settings, recorder, passwords: deps.domainPasswords }),
    policies: new PolicyService({ settings, recorder }),
    reachability,
  };
}
