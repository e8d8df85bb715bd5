/**
 * uid → `HOST\name` for the Who of attributed records (docs/attribution.md), `HOST\#uid` when
 * the uid has no name. /etc/passwd first (read again when it changes), then `getent passwd`
 * for accounts of other name services (LDAP, SSSD). Answers are cached.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';

export interface AccountNamesOptions {
  hostname?: string;
  passwdFile?: string;
  /** How long an unknown uid stays unknown before it is looked up again. */
  negativeTtlMs?: number;
  /** Looks a uid up in the name services; null when none knows it. */
  lookup?: (uid: number) => string | null;
}

export function getentName(uid: number): string | null {
  try {
    const line = execFileSync('getent', ['passwd', String(uid)], { encoding: 'utf8', timeout: 2000 });
    const name = line.split(':')[0];
    return name ? name : null;
  } catch {
    return null; // exit code 2: no such uid; or getent missing
  }
}

export function parsePasswd(text: string): Map<number, string> {
  const out = new Map<number, string>();
  for (const line of text.split('\n')) {
    const [name, , uid] = line.split(':');
    if (!name || uid === undefined || name.startsWith('#') || !/^\d+$/.test(uid)) continue;
    if (!out.has(Number(uid))) out.set(Number(uid), name);
  }
  return out;
}

export class AccountNames {
  private readonly hostname: string;
  private readonly passwdFile: string;
  private passwd = new Map<number, string>();
  private passwdStamp = '';
  private passwdCheckedAt = -Infinity;
  private readonly looked = new Map<number, { name: string | null; at: number }>();

  constructor(private readonly options: AccountNamesOptions = {}) {
    this.hostname = options.hostname ?? os.hostname();
    this.passwdFile = options.passwdFile ?? '/etc/passwd';
  }

  /** The account name of `uid`, or null. */
  nameOf(uid: number): string | null {
    this.refreshPasswd(false);
    const local = this.passwd.get(uid);
    if (local !== undefined) return local;
    const seen = this.looked.get(uid);
    if (seen && (seen.name !== null || Date.now() - seen.at < (this.options.negativeTtlMs ?? 30_000))) {
      return seen.name;
    }
    this.refreshPasswd(true); // an account added a moment ago
    const name = this.passwd.get(uid) ?? (this.options.lookup ?? getentName)(uid);
    this.looked.set(uid, { name, at: Date.now() });
    return name;
  }

  /** `HOST\name`, or `HOST\#uid` when the uid has no name. */
  who(uid: number): string {
    const name = this.nameOf(uid);
    return name === null ? `${this.hostname}\\#${uid}` : `${this.hostname}\\${name}`;
  }

  private refreshPasswd(force: boolean): void {
    // At most once a second unless forced: this runs for every event.
    const now = Date.now();
    if (!force && now - this.passwdCheckedAt < 1000) return;
    this.passwdCheckedAt = now;
    let stamp: string;
    try {
      const st = fs.statSync(this.passwdFile);
      stamp = `${st.mtimeMs}:${st.size}:${st.ino}`;
    } catch {
      stamp = 'missing';
    }
    if (stamp === this.passwdStamp) return;
    this.passwdStamp = stamp;
    try {
      this.passwd = parsePasswd(fs.readFileSync(this.passwdFile, 'utf8'));
    } catch {
      this.passwd = new Map();
    }
  }
}
