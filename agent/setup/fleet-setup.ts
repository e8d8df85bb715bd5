/**
 * Fleet membership at run time (docs/fleet.md): while settings name a fleet database the agent is
 * a member (forwarding, registry, upkeep); `vigil fleet join`/`leave` change the settings, through
 * the console when the agent runs, and the membership follows at once.
 */
import os from 'node:os';
import type { FleetMembershipSettings } from '../config/fleet-membership-schema.js';
import type { SettingsStore } from '../config/settings-store.js';
import type { DataPaths } from '../config/data-dir.js';
import { removeFleetPassword, writeFleetPassword } from '../fleet/fleet-connection.js';
import { startFleetMembership, type FleetMembership, type FleetMembershipOptions } from '../fleet/fleet-membership.js';
import type { FleetService, FleetStatusView } from '../fleet/fleet-service.js';
import type { Logger } from '../log/logger.js';

export interface FleetSetupDeps {
  paths: DataPaths;
  settings: SettingsStore;
  agentId: string;
  version: string | null;
  apiPort: () => number;
  log: Logger;
  /** Tuning for tests (heartbeat, poll, pacing). */
  tuning?: Partial<Pick<FleetMembershipOptions, 'heartbeatMs' | 'upkeepMs' | 'pollMs' | 'pacing'>>;
}

/** An address other members can reach this agent's API at: the bind address, or the first external one. */
function apiAddress(bindAddress: string): string | null {
  if (bindAddress !== '::' && bindAddress !== '0.0.0.0') return bindAddress;
  for (const addresses of Object.values(os.networkInterfaces())) {
    for (const address of addresses ?? []) {
      if (!address.internal && address.family === 'IPv4') return address.address;
    }
  }
  return null;
}

export function createFleetService(deps: FleetSetupDeps): FleetService {
  const { settings, log } = deps;
  let membership: FleetMembership | null = null;
  let started = false;
  /** Membership changes run one after another, in the order settings changed. */
  let changes: Promise<void> = Promise.resolve();

  const startMembership = async (fleet: FleetMembershipSettings): Promise<void> => {
    membership = await startFleetMembership({
      database: fleet.database,
      dataDir: deps.paths.root,
      auditDb: deps.paths.auditDb,
      agentId: deps.agentId,
      log: log.child('fleet'),
      retentionDays: () => settings.current.auditStore.retentionDays,
      registration: () => ({
        host: os.hostname(),
        apiAddress: apiAddress(settings.current.agentApi.bindAddress),
        apiPort: deps.apiPort(),
        version: deps.version,
        hosts: settings.current.hosts.map((h) => ({
          id: h.id,
          host: h.host,
          type: h.type,
          isEnabled: h.isEnabled,
          includePaths: h.includePaths,
          excludePaths: h.excludePaths,
          comment: h.comment,
        })),
      }),
      ...deps.tuning,
    });
    log.info('fleet membership started', { database: fleet.database, state: membership.state() });
  };
  const stopMembership = async (): Promise<void> => {
    const leaving = membership;
    membership = null;
    await leaving?.stop();
  };
  const follow = (next: FleetMembershipSettings | undefined): Promise<void> =>
    (changes = changes
      .then(async () => {
        if (!started) return;
        if (membership && next?.database === membership.database) return;
        await stopMembership();
        if (next) await startMembership(next);
      })
      .catch((error: Error) => log.error('fleet membership change failed', { error: error.message })));

  const unsubscribe = settings.onChange((next, previous) => {
    if (next.fleet?.database !== previous.fleet?.database) void follow(next.fleet);
  });

  const status = async (): Promise<FleetStatusView> => {
    await changes;
    const current = membership;
    if (!current) {
      return {
        database: settings.current.fleet?.database ?? null,
        state: 'alone',
        problem: null,
        backlog: 0,
        members: [],
      };
    }
    // Known unreachable: answer now with what the member knows, rather than wait for a connection to fail.
    const state = current.state();
    const members = state === 'connected' ? ((await current.members().catch(() => null)) ?? []) : [];
    return {
      database: current.database,
      state,
      problem: state === 'connected' ? null : current.problem(),
      backlog: current.backlog(),
      members: members.map((m) => ({ id: m.id, host: m.host, lastSeen: m.lastSeen, status: m.status })),
    };
  };

  return {
    current: () => membership,
    knownMembers: () => membership?.knownMembers() ?? [],
    status,
    async members() {
      const current = membership;
      if (!current || current.state() !== 'connected') return null;
      return current.members().catch(() => null);
    },
    async join(database, password) {
      if (password !== null) writeFleetPassword(deps.paths.root, password);
      await settings.update((draft) => {
        draft.fleet = { database, joinedAt: new Date().toISOString() };
      });
      await follow(settings.current.fleet);
      return status();
    },
    async leave() {
      await settings.update((draft) => {
        delete draft.fleet;
      });
      await follow(undefined);
      removeFleetPassword(deps.paths.root);
    },
    problem() {
      const current = membership;
      const since = current?.unreachableSince();
      if (!current || !since) return null;
      const waiting = `${current.backlog()} records waiting`;
      if (current.state() === 'refused') {
        return `fleet database refuses this agent since ${since.toISOString()} (${current.problem()}), ${waiting}`;
      }
      return `fleet database unreachable since ${since.toISOString()}, ${waiting}`;
    },
    async start() {
      started = true;
      await follow(settings.current.fleet);
    },
    async stop() {
      unsubscribe();
      started = false;
      await changes;
      await stopMembership();
    },
  };
}
