/**
 * Client applications of the agent API (docs/authentication.md): create (the secret is shown
 * once), list, change permissions (effective on the next request, no new token needed),
 * regenerate the secret, revoke. They live in settings.json (`clients`), with the secret only
 * as a keyed hash; their tokens live in auth.db. The same service runs inside the agent
 * (console API) and in the `vigil` command when no agent runs (it then holds the agent lock).
 *
 * Every change is reported to the ChangeRecorder (docs/activity-pipeline.md), which the activity pipeline
 * turns into an activity record; secrets never appear in a change.
 */
import crypto from 'node:crypto';
import {
  clientNameProblem,
  type ClientApplicationView,
  type ClientCredentials,
} from '../../shared/client-application.js';
import {
  describePermissionWords,
  isPermission,
  normalizePermissions,
  type Permission,
} from '../../shared/permissions.js';
import type { ChangeRecorder } from '../pipeline/change-recorder.js';
import type { SettingsStore } from '../config/settings-store.js';
import type { StoredClientApplication } from '../config/settings-schema.js';
import { ClientApplicationError } from './client-errors.js';
import { generateCredential, looksLikeCredential } from './credential-format.js';
import type { CredentialHasher } from './keyed-hash.js';
import { CLIENT_SECRET_LIFETIME_MS, type Clock } from './lifetimes.js';

export const CLIENT_OBJECT_TYPE = 'Client application';

export type ClientAuthFailure = 'unknown_client' | 'wrong_secret' | 'secret_expired';
export type ClientAuthResult =
  | { ok: true; client: StoredClientApplication }
  | { ok: false; reason: ClientAuthFailure; client?: StoredClientApplication };

/** Revokes a client's tokens; TokenService fills it in the agent and the offline CLI alike. */
export interface ClientTokenRevoker {
  revokeClient(clientId: string): number;
}

export interface ClientServiceDeps {
  settings: SettingsStore;
  hasher: CredentialHasher;
  tokens: ClientTokenRevoker;
  recorder: ChangeRecorder;
  now: Clock;
}

export interface NewClientInput {
  name: unknown;
  permissions: unknown;
}

/** A hash that no secret produces, checked for unknown client ids so timing does not tell. */
const DUMMY_HASH = '0'.repeat(64);

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

export function parseClientName(value: unknown): string {
  if (typeof value !== 'string') throw new ClientApplicationError('invalid', 'the name must be a string', 'name');
  const name = value.trim();
  const problem = clientNameProblem(name);
  if (problem) throw new ClientApplicationError('invalid', problem, 'name');
  return name;
}

/** Permissions by their JSON names (shared/permissions.ts); an unknown name is refused, naming it. */
export function parsePermissionList(value: unknown): Permission[] {
  if (!Array.isArray(value)) {
    throw new ClientApplicationError('invalid', 'permissions must be a list of permission names', 'permissions');
  }
  const out: Permission[] = [];
  value.forEach((item: unknown, index) => {
    if (!isPermission(item)) {
      throw new ClientApplicationError(
        'invalid',
        `unknown permission ${JSON.stringify(item)}; use ${describePermissionWords('json')}`,
        `permissions[${index}]`,
      );
    }
    out.push(item);
  });
  return normalizePermissions(out);
}

export class ClientService {
  private index: { source: unknown; byId: Map<string, StoredClientApplication> } = { source: null, byId: new Map() };

  constructor(private readonly deps: ClientServiceDeps) {}

  /** The client with this id, read from the current settings (O(1); rebuilt after a change). */
  find(clientId: string): StoredClientApplication | undefined {
    const clients = this.deps.settings.current.clients;
    if (this.index.source !== clients) {
      this.index = { source: clients, byId: new Map(clients.map((c) => [c.id, c])) };
    }
    return this.index.byId.get(clientId);
  }

  view(client: StoredClientApplication): ClientApplicationView {
    return {
      clientId: client.id,
      name: client.name,
      permissions: [...client.permissions],
      secretExpiresAt: client.secretExpiresAt,
      secretExpired: this.deps.now() >= Date.parse(client.secretExpiresAt),
      createdAt: client.createdAt,
    };
  }

  list(): ClientApplicationView[] {
    return this.deps.settings.current.clients.map((client) => this.view(client));
  }

  /**
   * Client authentication (RFC 6749 §2.3.1): the secret is checked before its age, so only a
   * caller holding the right secret learns that it expired. Unknown ids cost the same HMAC.
   */
  authenticate(clientId: string, secret: string): ClientAuthResult {
    const client = this.find(clientId);
    const wellFormed = looksLikeCredential(secret, 'secret');
    const matches = this.deps.hasher.matchesHex(secret, client?.secretHash ?? DUMMY_HASH);
    if (!client) return { ok: false, reason: 'unknown_client' };
    if (!wellFormed || !matches) return { ok: false, reason: 'wrong_secret', client };
    if (this.deps.now() >= Date.parse(client.secretExpiresAt)) return { ok: false, reason: 'secret_expired', client };
    return { ok: true, client };
  }

  private newSecret(): { secret: string; hash: string; expiresAt: string } {
    const secret = generateCredential('secret');
    return {
      secret,
      hash: this.deps.hasher.hashHex(secret),
      expiresAt: iso(this.deps.now() + CLIENT_SECRET_LIFETIME_MS),
    };
  }

  private requireClient(clients: StoredClientApplication[], clientId: string): StoredClientApplication {
    const client = clients.find((c) => c.id === clientId);
    if (!client)
      throw new ClientApplicationError('not_found', `there is no client application "${clientId}"`, 'clientId');
    return client;
  }

  async add(input: NewClientInput, actor: string): Promise<ClientCredentials & { name: string }> {
    const name = parseClientName(input.name);
    const permissions = parsePermissionList(input.permissions);
    const id = crypto.randomBytes(16).toString('hex');
    const secret = this.newSecret();
    await this.deps.settings.update((draft) => {
      if (draft.clients.some((c) => c.name.toLowerCase() === name.toLowerCase())) {
        throw new ClientApplicationError('conflict', `a client application named "${name}" already exists`, 'name');
      }
      draft.clients.push({
        id,
        name,
        permissions,
        secretHash: secret.hash,
        secretExpiresAt: secret.expiresAt,
        createdAt: iso(this.deps.now()),
      });
    });
    this.deps.recorder.recordChange({
      actor,
      action: 'Added',
      objectType: CLIENT_OBJECT_TYPE,
      what: name,
      id,
      details: [
        { PropertyName: 'Client ID', After: id },
        { PropertyName: 'Permissions', After: permissions.join(', ') },
        { PropertyName: 'Secret expires', After: secret.expiresAt },
      ],
    });
    return { clientId: id, name, clientSecret: secret.secret, secretExpiresAt: secret.expiresAt, permissions };
  }

  async setPermissions(clientId: string, value: unknown, actor: string): Promise<ClientApplicationView> {
    const permissions = parsePermissionList(value);
    let before: Permission[] = [];
    const next = await this.deps.settings.update((draft) => {
      const client = this.requireClient(draft.clients, clientId);
      before = client.permissions;
      client.permissions = permissions;
    });
    const client = this.requireClient(next.clients, clientId);
    this.deps.recorder.recordChange({
      actor,
      action: 'Modified',
      objectType: CLIENT_OBJECT_TYPE,
      what: client.name,
      id: client.id,
      details: [{ PropertyName: 'Permissions', Before: before.join(', '), After: permissions.join(', ') }],
    });
    return this.view(client);
  }

  /**
   * A new secret, valid 72 hours; the old one stops working, and so does every access and
   * refresh token issued to the client (docs/authentication.md): an operator regenerates a
   * secret because it leaked, and whoever held it may have obtained tokens with it. The client
   * keeps its id and permissions and enrols again with the new secret.
   */
  async regenerateSecret(clientId: string, actor: string): Promise<ClientCredentials & { name: string }> {
    const secret = this.newSecret();
    let before = '';
    const next = await this.deps.settings.update((draft) => {
      const client = this.requireClient(draft.clients, clientId);
      before = client.secretExpiresAt;
      client.secretHash = secret.hash;
      client.secretExpiresAt = secret.expiresAt;
    });
    const tokens = this.deps.tokens.revokeClient(clientId);
    const client = this.requireClient(next.clients, clientId);
    this.deps.recorder.recordChange({
      actor,
      action: 'Modified',
      objectType: CLIENT_OBJECT_TYPE,
      what: client.name,
      id: client.id,
      details: [
        { PropertyName: 'Secret expires', Before: before, After: secret.expiresAt },
        { PropertyName: 'Live tokens revoked', After: String(tokens) },
      ],
    });
    return {
      clientId,
      name: client.name,
      clientSecret: secret.secret,
      secretExpiresAt: secret.expiresAt,
      permissions: [...client.permissions],
    };
  }

  /**
   * Removes the client and revokes all its tokens. The settings change comes first: from that
   * moment no request of this client passes the bearer check, whatever auth.db says.
   */
  async revoke(clientId: string, actor: string): Promise<{ clientId: string; name: string; revoked: true }> {
    let removed: StoredClientApplication | undefined;
    await this.deps.settings.update((draft) => {
      removed = this.requireClient(draft.clients, clientId);
      draft.clients = draft.clients.filter((c) => c.id !== clientId);
    });
    const tokens = this.deps.tokens.revokeClient(clientId);
    const name = removed?.name ?? clientId;
    this.deps.recorder.recordChange({
      actor,
      action: 'Removed',
      objectType: CLIENT_OBJECT_TYPE,
      what: name,
      id: clientId,
      details: [
        { PropertyName: 'Client ID', Before: clientId },
        { PropertyName: 'Permissions', Before: removed?.permissions.join(', ') ?? '' },
        { PropertyName: 'Live tokens revoked', After: String(tokens) },
      ],
    });
    return { clientId, name, revoked: true };
  }
}
