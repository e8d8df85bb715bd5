/**
 * The bind password of each directory domain, kept out of settings.json: one owner-only file per
 * domain under `<data>/secrets/domain-passwords/` (folder 0700, files 0600), named by the hex of
 * the domain id so no id ("..") can point elsewhere. Never returned by an API, never logged
 * (docs/security.md, F20). A settings.json written before this moved here is migrated at start.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '../log/logger.js';
import { writeFileDurably } from './durable-file.js';
import type { SettingsStore } from './settings-store.js';

export class DomainPasswords {
  constructor(private readonly dir: string) {}

  private file(domainId: string): string {
    return path.join(this.dir, Buffer.from(domainId, 'utf8').toString('hex'));
  }

  async set(domainId: string, password: string): Promise<void> {
    await fs.mkdir(this.dir, { recursive: true, mode: 0o700 });
    await writeFileDurably(this.file(domainId), password, { mode: 0o600 });
  }

  /** The stored password, or null when the domain has none. */
  async get(domainId: string): Promise<string | null> {
    try {
      return await fs.readFile(this.file(domainId), 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }

  async remove(domainId: string): Promise<void> {
    await fs.rm(this.file(domainId), { force: true });
  }

  /** Moves passwords an older version kept in settings.json into their files, then drops them there. */
  async migrateFrom(settings: SettingsStore, log: Logger): Promise<void> {
    const held = settings.current.domains.filter((d) => d.password !== undefined);
    if (held.length === 0) return;
    for (const domain of held) await this.set(domain.id, domain.password!);
    await settings.update((draft) => {
      for (const domain of draft.domains) delete domain.password;
    });
    log.info('moved domain bind passwords out of settings.json into owner-only files', {
      domains: held.map((d) => d.id).join(', '),
      folder: this.dir,
    });
  }
}
