/**
 * The Agent resource of the agent API (reference agent-api.md §1.6.1, the 9.0/10.0 nested
 * form), as far as a workstation agent has something true to say. The limited view (Access
 * activity data) omits the "Detailed Only" attributes (spec §2). Pure: the console shows it too.
 */

export type AgentPlatform = 'Windows' | 'Linux' | 'MacOS';

export interface AgentLimitedView {
  id: string;
  /** Absolute self link. */
  url: string;
  platformId: AgentPlatform;
  /** The machine's host name. */
  host: string;
  netbiosName: string;
  /** The Active Directory domain; empty on a machine outside a domain. */
  domain: string;
  osVersion: string;
  isDC: boolean;
  errorMessage: string;
  installState: 'Installed';
  version: string;
  /** Changes whenever the agent's configuration changes. */
  configVersion: string;
  monitoredHostsUrl: string;
  monitoredDomainUrl: string;
  apiServerIsEnabled: boolean;
  apiServerPort: number;
  /** The account the agent runs as. */
  userName: string;
  comment: string;
}

export interface AgentDetailedView extends AgentLimitedView {
  warnings: string[];
  /** The agent API's IP allow-list. */
  apiServerIpWhitelist: string[];
  /** Where this agent is managed from: its own console. */
  apiServerMgmtConsole: string;
}

/** The attributes the limited view leaves out ("Detailed Only", agent-api.md §1.6.1). */
export const AGENT_DETAILED_ONLY = ['warnings', 'apiServerIpWhitelist', 'apiServerMgmtConsole'] as const;

export function limitedAgentView(agent: AgentDetailedView): AgentLimitedView {
  const copy: Partial<AgentDetailedView> = { ...agent };
  for (const key of AGENT_DETAILED_ONLY) delete copy[key];
  return copy as AgentLimitedView;
}
