/**
 * A network namespace joined to the host by a veth pair on a private /30, for partition tests:
 * a process started with `exec(…)` runs inside it (`ip netns exec`) and reaches the host only
 * through `hostAddress`; `cut()` takes the host end of the link down (packets to and from the
 * namespace are dropped, no connection is told), `reconnect()` brings it back. Needs root and
 * iproute2 (`.ci/run` installs it).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';

export interface NetworkNamespace {
  name: string;
  /** The host end's address: what a process in the namespace connects to. */
  hostAddress: string;
  /** The namespace end's address. */
  innerAddress: string;
  /** The /30 both ends are on (for pg_hba.conf). */
  subnet: string;
  /** `command` prefixed so that it runs inside the namespace. */
  exec(command: string[]): string[];
  cut(): void;
  reconnect(): void;
  /** Deletes the namespace and the link; idempotent, never throws. */
  remove(): void;
}

function ip(args: string[]): string {
  return execFileSync('ip', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Why namespaces cannot be made here, or null when they can. */
export function netnsUnavailable(): string | null {
  if (process.getuid?.() !== 0) return 'network namespaces need root';
  try {
    ip(['netns', 'list']);
    return null;
  } catch (error) {
    return `\`ip netns\` is unavailable (${(error as Error).message.split('\n')[0]})`;
  }
}

const created = new Set<NetworkNamespace>();
process.once('exit', () => {
  for (const ns of created) ns.remove();
});

/** A namespace and veth pair named after this process, on 10.200.N.0/30 (N from the pid). */
export function createNetworkNamespace(tag: string): NetworkNamespace {
  const id = `${tag}${process.pid}`.slice(-9);
  const name = `vigil-${id}`;
  const hostEnd = `vh${id}`;
  const innerEnd = `vn${id}`;
  const octet = (process.pid % 250) + 1;
  const hostAddress = `10.200.${octet}.1`;
  const innerAddress = `10.200.${octet}.2`;
  let removed = false;
  const ns: NetworkNamespace = {
    name,
    hostAddress,
    innerAddress,
    subnet: `10.200.${octet}.0/30`,
    exec: (command) => ['ip', 'netns', 'exec', name, ...command],
    cut: () => ip(['link', 'set', hostEnd, 'down']),
    reconnect: () => ip(['link', 'set', hostEnd, 'up']),
    remove() {
      if (removed) return;
      removed = true;
      created.delete(ns);
      // Deleting the namespace destroys its veth end, and with it the host end.
      for (const args of [
        ['link', 'del', hostEnd],
        ['netns', 'del', name],
      ]) {
        try {
          ip(args);
        } catch {
          // already gone
        }
      }
    },
  };
  created.add(ns);
  try {
    if (fs.existsSync(`/run/netns/${name}`)) ip(['netns', 'del', name]);
    ip(['netns', 'add', name]);
    ip(['link', 'add', hostEnd, 'type', 'veth', 'peer', 'name', innerEnd]);
    ip(['link', 'set', innerEnd, 'netns', name]);
    ip(['addr', 'add', `${hostAddress}/30`, 'dev', hostEnd]);
    ip(['link', 'set', hostEnd, 'up']);
    ip(['-n', name, 'addr', 'add', `${innerAddress}/30`, 'dev', innerEnd]);
    ip(['-n', name, 'link', 'set', innerEnd, 'up']);
    ip(['-n', name, 'link', 'set', 'lo', 'up']);
  } catch (error) {
    ns.remove();
    throw error;
  }
  return ns;
}
