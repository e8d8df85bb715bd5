/**
 * Audit API users (docs/audit-api.md): kept in settings.json (`auditUsers`), passwords hashed with
 * scrypt, roles `reader` and `contributor`. Used by the audit listener (authenticate), the CLI
 * and later the console (add, list, remove, set-password, set-roles). Knows nothing of HTTP.
 *
 * A verification cache spares a busy client the scrypt cost on every request: after a
 * successful check, an HMAC of the password under a per-process key is kept for a few minutes
 * next to the stored hash it was checked against. A changed password or a removed user no
 * longer matches (the stored hash differs or the user is gone), and the entries are also
 * dropped at once when settings change. Unknown users are checked against a dummy hash so the
 * answer takes as long as for a real one. At most two scrypt runs at a time, and at most
 * MAX_WAITING_CHECKS logins waiting for one.
 */
import crypto from 'node:crypto';
import type { ChangeRecorder } from '../pipeline/change-recorder.js';
import type { SettingsStore } from '../config/settings-store.js';
import {
  AUDIT_ROLES,
  auditUserNameSchema,
  type AuditRole,
  type AuditUser,
  type PasswordHash,
} from '../config/settings-schema.js';
import { DEFAULT_SCRYPT, hashPassword, verifyPassword, type ScryptParams } from './password-hash.js';
import { ServiceError, type ServiceErrorKind } from '../util/service-error.js';

export interface AuditUserView {
  name: string;
  roles: AuditRole[];
  createdAt: string;
  passwordChangedAt: string;
}

export const MIN_PASSWORD_LENGTH = 8;
export const MAX_PASSWORD_LENGTH = 1024;

/** A refused change to the audit users: a ServiceError (agent/util/service-error.ts) that always names its field. */
export class AuditUserError extends ServiceError {
  constructor(
    kind: ServiceErrorKind,
    override readonly field: 'name' | 'roles' | 'password',
    message: string,
  ) {
    super(kind, message, field);
    this.name = 'AuditUserError';
  }
}

export interface AuditUserServiceOptions {
  recorder?: ChangeRecorder;
  hashParams?: ScryptParams;
  cacheTtlMs?: number;
  now?: () => number;
}

interface CacheEntry {
  storedHash: string;
  digest: Buffer;
  expires: number;
}

const MAX_CACHE_ENTRIES = 1000;
/** Everything a check depends on: a changed salt, hash or cost invalidates a cached result. */
const stamp = (user: AuditUser): string => JSON.stringify(user.passwordHash);
const view = (user: AuditUser): AuditUserView => ({
  name: user.name,
  roles: [...user.roles],
  createdAt: user.createdAt,
  passwordChangedAt: user.passwordChangedAt,
});

/**
 * Too many password checks are waiting already: the login is refused without being checked
 * (the audit API answers 429), so a flood of logins cannot delay a legitimate one without bound.
 */
export class PasswordChecksBusyError extends Error {
  constructor() {
    super('too many password checks are waiting');
    this.name = 'PasswordChecksBusyError';
  }
}

/** Password checks that may wait for the gate; beyond them a login is refused at once. */
export const MAX_WAITING_CHECKS = 32;

/** Lets at most `limit` tasks run at once. */
class Gate {
  private running = 0;
  private readonly queue: Array<() => void> = [];
  constructor(private readonly limit: number) {}
  /** `maxWaiting`: refuse (PasswordChecksBusyError) rather than queue behind that many. */
  async run<T>(task: () => Promise<T>, maxWaiting = Infinity): Promise<T> {
    if (this.running >= this.limit) {
      if (this.queue.length >= maxWaiting) throw new PasswordChecksBusyError();
      await new Promise<void>((resolve) => this.queue.push(resolve));
    }
    this.running += 1;
    try {
      return await task();
    } finally {
      this.running -= 1;
      this.queue.shift()?.();
    }
  }
}

export class AuditUserService {
  private readonly cache = new Map<string, CacheEntry>();
  private readonly cacheKey = crypto.randomBytes(32);
  private readonly gate = new Gate(2);
  /**
   * What unknown users are checked against: a random salt and the current cost, so the check
   * takes what a real user's takes. Its hash is all zeros, which no password produces; nothing
   * has to be computed for it, so even the first unknown user costs no extra scrypt run (a
   * lazily computed dummy made that one request twice as slow, a one-time timing tell).
   */
  private readonly dummy: PasswordHash;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly settings: SettingsStore,
    private readonly options: AuditUserServiceOptions = {},
  ) {
    const params = options.hashParams ?? DEFAULT_SCRYPT;
    this.dummy = {
      algorithm: 'scrypt',
      N: params.N,
      r: params.r,
      p: params.p,
      keyLength: params.keyLength,
      salt: crypto.randomBytes(16).toString('base64'),
      hash: Buffer.alloc(params.keyLength).toString('base64'),
    };
    this.unsubscribe = settings.onChange((next) => {
      const current = new Map(next.auditUsers.map((u) => [u.name.toLowerCase(), stamp(u)]));
      for (const [name, entry] of this.cache) if (current.get(name) !== entry.storedHash) this.cache.delete(name);
    });
  }

  private now(): number {
    return this.options.now?.() ?? Date.now();
  }

  private find(name: string): AuditUser | undefined {
    const key = name.toLowerCase();
    return this.settings.current.auditUsers.find((u) => u.name.toLowerCase() === key);
  }

  list(): AuditUserView[] {
    return this.settings.current.auditUsers.map(view);
  }

  get(name: string): AuditUserView | null {
    const user = this.find(name);
    return user ? view(user) : null;
  }

  private checkName(name: string): string {
    const result = auditUserNameSchema.safeParse(name);
    if (!result.success) throw new AuditUserError('invalid', 'name', `user name ${result.error.issues[0]!.message}`);
    return name;
  }

  private checkRoles(roles: readonly string[]): AuditRole[] {
    if (roles.length === 0) throw new AuditUserError('invalid', 'roles', 'give at least one role: reader, contributor');
    const out: AuditRole[] = [];
    for (const role of roles) {
      if (!(AUDIT_ROLES as readonly string[]).includes(role)) {
        throw new AuditUserError('invalid', 'roles', `unknown role "${role}"; roles are reader and contributor`);
      }
      if (!out.includes(role as AuditRole)) out.push(role as AuditRole);
    }
    return out;
  }

  private checkPassword(password: string): void {
    if (password.length < MIN_PASSWORD_LENGTH) {
      throw new AuditUserError('invalid', 'password', `the password needs at least ${MIN_PASSWORD_LENGTH} characters`);
    }
    if (password.length > MAX_PASSWORD_LENGTH) {
      throw new AuditUserError(
        'invalid',
        'password',
        `the password may have at most ${MAX_PASSWORD_LENGTH} characters`,
      );
    }
  }

  private hash(password: string): Promise<PasswordHash> {
    return this.gate.run(() => hashPassword(password, this.options.hashParams ?? DEFAULT_SCRYPT));
  }

  async add(
    input: { name: string; roles: readonly string[]; password: string },
    actor = 'cli',
  ): Promise<AuditUserView> {
    const name = this.checkName(input.name);
    const roles = this.checkRoles(input.roles);
    this.checkPassword(input.password);
    if (this.find(name)) throw new AuditUserError('conflict', 'name', `an audit user named "${name}" already exists`);
    const passwordHash = await this.hash(input.password);
    const at = new Date(this.now()).toISOString();
    const user: AuditUser = { name, roles, passwordHash, createdAt: at, passwordChangedAt: at };
    await this.settings.update((draft) => {
      if (draft.auditUsers.some((u) => u.name.toLowerCase() === name.toLowerCase())) {
        throw new AuditUserError('conflict', 'name', `an audit user named "${name}" already exists`);
      }
      draft.auditUsers.push(user);
    });
    this.options.recorder?.recordChange({
      actor,
      action: 'Added',
      objectType: 'Audit user',
      what: name,
      id: name,
      details: [{ PropertyName: 'Roles', After: roles.join(', ') }],
    });
    return view(user);
  }

  private async modify(name: string, change: (user: AuditUser) => void): Promise<AuditUser> {
    let changed: AuditUser | undefined;
    await this.settings.update((draft) => {
      changed = draft.auditUsers.find((u) => u.name.toLowerCase() === name.toLowerCase());
      if (!changed) throw new AuditUserError('not_found', 'name', `no audit user named "${name}"`);
      change(changed);
    });
    return changed!;
  }

  async remove(name: string, actor = 'cli'): Promise<void> {
    if (!this.find(name)) throw new AuditUserError('not_found', 'name', `no audit user named "${name}"`);
    let removed: AuditUser | undefined;
    await this.settings.update((draft) => {
      const index = draft.auditUsers.findIndex((u) => u.name.toLowerCase() === name.toLowerCase());
      if (index < 0) throw new AuditUserError('not_found', 'name', `no audit user named "${name}"`);
      [removed] = draft.auditUsers.splice(index, 1);
    });
    this.cache.delete(name.toLowerCase());
    this.options.recorder?.recordChange({
      actor,
      action: 'Removed',
      objectType: 'Audit user',
      what: removed!.name,
      id: removed!.name,
    });
  }

  async setPassword(name: string, password: string, actor = 'cli'): Promise<AuditUserView> {
    this.checkPassword(password);
    if (!this.find(name)) throw new AuditUserError('not_found', 'name', `no audit user named "${name}"`);
    const passwordHash = await this.hash(password);
    const at = new Date(this.now()).toISOString();
    const user = await this.modify(name, (u) => {
      u.passwordHash = passwordHash;
      u.passwordChangedAt = at;
    });
    this.cache.delete(name.toLowerCase());
    // Never the password or its hash in the record: only that it changed.
    this.options.recorder?.recordChange({
      actor,
      action: 'Modified',
      objectType: 'Audit user',
      what: user.name,
      id: user.name,
      details: [{ PropertyName: 'Password', After: '(changed)' }],
    });
    return view(user);
  }

  async setRoles(name: string, roles: readonly string[], actor = 'cli'): Promise<AuditUserView> {
    const checked = this.checkRoles(roles);
    let before: string[] = [];
    const user = await this.modify(name, (u) => {
      before = [...u.roles];
      u.roles = checked;
    });
    this.options.recorder?.recordChange({
      actor,
      action: 'Modified',
      objectType: 'Audit user',
      what: user.name,
      id: user.name,
      details: [{ PropertyName: 'Roles', Before: before.join(', '), After: checked.join(', ') }],
    });
    return view(user);
  }

  private digest(password: string): Buffer {
    return crypto.createHmac('sha256', this.cacheKey).update(password, 'utf8').digest();
  }

  /**
   * The user when `password` is theirs, else null; as slow for unknown users as for known ones.
   * Throws PasswordChecksBusyError, without checking, when MAX_WAITING_CHECKS checks wait already;
   * a login answered from the cache never waits.
   */
  async authenticate(name: string, password: string): Promise<AuditUserView | null> {
    const user = this.find(name);
    if (!user) {
      const dummy = this.dummy;
      await this.gate.run(() => verifyPassword(password, dummy), MAX_WAITING_CHECKS);
      return null;
    }
    const key = user.name.toLowerCase();
    const digest = this.digest(password);
    const cached = this.cache.get(key);
    if (
      cached &&
      cached.storedHash === stamp(user) &&
      cached.expires > this.now() &&
      crypto.timingSafeEqual(cached.digest, digest)
    ) {
      return view(user);
    }
    // A miss, or a different password: the full check (so a wrong guess costs what it always costs).
    const ok = await this.gate.run(() => verifyPassword(password, user.passwordHash), MAX_WAITING_CHECKS);
    // The user may have changed while scrypt ran: only cache against what is current now.
    const current = this.find(name);
    if (!ok || !current || stamp(current) !== stamp(user)) return null;
    if (this.cache.size >= MAX_CACHE_ENTRIES) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(key, {
      storedHash: stamp(user),
      digest,
      expires: this.now() + (this.options.cacheTtlMs ?? 300_000),
    });
    return view(current);
  }

  /** Whether a check of `name` would be answered from the cache (for tests and diagnostics). */
  isCached(name: string): boolean {
    const entry = this.cache.get(name.toLowerCase());
    return entry !== undefined && entry.expires > this.now();
  }

  close(): void {
    this.unsubscribe();
    this.cache.clear();
  }
}
