/**
 * The Agent resource of the agent API (reference docs/agent-api.md, the 9.0/10.0 nested
 * form), as far as a workstation agent has something true to say. The limited view (Access
 * activity data) omits the "Detailed Only" attributes (docs/agent-api.md). Pure: the console shows it too.
 *
 * Two kinds of agents appear: the one hosting the API (`installState` `Installed`, every fact
 * known) and agents registered so a console keeps its fleet in one place (`installState`
 * `Unknown`): for those only the address, port, comment and reachability are known, and the
 * facts only that agent can tell (platform, version, OS...) are empty (`platformId` null).
 */

export type AgentPlatform = 'Windows' | 'Linux' | 'MacOS';

export const STATUS_TYPES = ['OK', 'Warning', 'Error'] as const;

/** A status as hosts, outputs and agents report it (docs/agent-api.md). */
export interface ResourceStatus {
  updatedAt: string;
  type: (typeof STATUS_TYPES)[number];
  summary: string;
  details: string;
}

export interface AgentLimitedView {
  id: string;
  /** Absolute self link. */
  url: string;
  /** Null for a registered agent: only that agent knows. */
  platformId: AgentPlatform | null;
  /** The machine's host name (for a registered agent, the name or address it was registered with). */
  host: string;
  netbiosName: string;
  /** The Active Directory domain; empty on a machine outside a domain. */
  domain: string;
  osVersion: string;
  isDC: boolean;
  errorMessage: string;
  installState: 'Installed' | 'Unknown';
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
  /** The local agent: running, or failing to store records. A registered agent: its reachability. */
  status: ResourceStatus;
  /** The key that signs the agent's record chain (docs/integrity.md); null for a registered agent. */
  signingKey: AgentSigningKey | null;
}

export interface AgentSigningKey {
  /** The Ed25519 public key, SPKI PEM. */
  publicKey: string;
  /** SHA-256 (hex) of the raw 32-byte public key. */
  fingerprint: string;
}

export interface AgentDetailedView extends AgentLimitedView {
  warnings: string[];
  /** The agent API's IP allow-list. */
  apiServerIpWhitelist: string[];
  /** Where this agent is managed from: its own console. */
  apiServerMgmtConsole: string;
  /** Most space the log files may take, in bytes (null for a registered agent). */
  maxLocalSize: number | null;
  /** Log writing stops below this free disk space, in bytes (null for a registered agent). */
  minLocalFreeSpace: number | null;
}

/** The attributes the limited view leaves out ("Detailed Only", docs/agent-api.md). */
export const AGENT_DETAILED_ONLY = [
  'warnings',
  'apiServerIpWhitelist',
  'apiServerMgmtConsole',
  'maxLocalSize',
  'minLocalFreeSpace',
] as const;

export function limitedAgentView(agent: AgentDetailedView): AgentLimitedView {
  const copy: Partial<AgentDetailedView> = { ...agent };
  for (const key of AGENT_DETAILED_ONLY) delete copy[key];
  return copy as AgentLimitedView;
}
