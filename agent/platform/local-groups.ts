/**
 * Local group membership for the InGroup / NotInGroup operators of the Who filter
 * (docs/audit-api.md). A domain-joined server would ask Active Directory; Vigil asks the machine it runs
 * on, where the platform can tell without running programs:
 * - Linux and other Unix systems: /etc/group (listed members) and /etc/passwd (primary group).
 * - macOS and Windows: their groups live in Directory Services and the SAM, which have no file
 *   to read; InGroup is refused there with a clear error (docs/audit-api.md).
 * Who values of a local account are `user`, `HOST\user` or `.\user`; accounts of another
 * domain are never members of a local group.
 */
import fs from 'node:fs/promises';
import os from 'node:os';

export class GroupsUnsupportedError extends Error {
  constructor(platform: string) {
    super(`group membership cannot be resolved on this platform (${platform}); InGroup and NotInGroup work on Linux`);
    this.name = 'GroupsUnsupportedError';
  }
}

export interface GroupResolver {
  /** Lower-cased Who values of the group's members; null when there is no such local group. */
  members(group: string): Promise<string[] | null>;
}

export interface UnixGroupFilesOptions {
  groupFile?: string;
  passwdFile?: string;
  hostname?: string;
  /** The files are read again after this long. */
  ttlMs?: number;
}

interface GroupTable {
  groups: Map<string, { gid: string; members: Set<string> }>;
  primary: Map<string, string[]>; // gid → user names
  readAt: number;
}

export class UnixGroupFiles implements GroupResolver {
  private table: GroupTable | null = null;

  constructor(private readonly options: UnixGroupFilesOptions = {}) {}

  private async load(): Promise<GroupTable> {
    if (this.table && Date.now() - this.table.readAt < (this.options.ttlMs ?? 30_000)) return this.table;
    const [groupText, passwdText] = await Promise.all([
      fs.readFile(this.options.groupFile ?? '/etc/group', 'utf8'),
      fs.readFile(this.options.passwdFile ?? '/etc/passwd', 'utf8').catch(() => ''),
    ]);
    const groups = new Map<string, { gid: string; members: Set<string> }>();
    for (const line of groupText.split('\n')) {
      const [name, , gid, members] = line.split(':');
      if (!name || gid === undefined || name.startsWith('#')) continue;
      groups.set(name, { gid, members: new Set((members ?? '').split(',').filter(Boolean)) });
    }
    const primary = new Map<string, string[]>();
    for (const line of passwdText.split('\n')) {
      const [user, , , gid] = line.split(':');
      if (!user || gid === undefined || user.startsWith('#')) continue;
      primary.set(gid, [...(primary.get(gid) ?? []), user]);
    }
    this.table = { groups, primary, readAt: Date.now() };
    return this.table;
  }

  private hostNames(): string[] {
    const full = (this.options.hostname ?? os.hostname()).toLowerCase();
    return [...new Set([full, full.split('.')[0]!, '.'])];
  }

  async members(group: string): Promise<string[] | null> {
    const slash = group.lastIndexOf('\\');
    const domain = slash === -1 ? null : group.slice(0, slash).toLowerCase();
    if (domain !== null && !this.hostNames().includes(domain)) return null;
    const name = group.slice(slash + 1);
    const table = await this.load();
    let entry = table.groups.get(name);
    if (!entry) {
      const matches = [...table.groups.entries()].filter(([n]) => n.toLowerCase() === name.toLowerCase());
      if (matches.length !== 1) return null;
      entry = matches[0]![1];
    }
    const users = new Set([...entry.members, ...(table.primary.get(entry.gid) ?? [])]);
    const out: string[] = [];
    for (const user of users) {
      const lower = user.toLowerCase();
      out.push(lower, ...this.hostNames().map((host) => `${host}\\${lower}`));
    }
    return out;
  }
}

class Unsupported implements GroupResolver {
  constructor(private readonly platform: string) {}
  members(): Promise<string[] | null> {
    return Promise.reject(new GroupsUnsupportedError(this.platform));
  }
}

export function platformGroups(platform: NodeJS.Platform = process.platform): GroupResolver {
  return platform === 'win32' || platform === 'darwin' ? new Unsupported(platform) : new UnixGroupFiles();
}
