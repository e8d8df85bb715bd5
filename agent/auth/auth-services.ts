/**
 * Opens everything behind client applications and tokens for one data directory: the pepper,
 * auth.db, the token service and the client service. Used by the agent at start and by the
 * `vigil client` command when no agent runs (it then holds the agent lock).
 */
import type { ChangeRecorder } from '../pipeline/change-recorder.js';
import type { DataPaths } from '../config/data-dir.js';
import type { SettingsStore } from '../config/settings-store.js';
import type { Logger } from '../log/logger.js';
import { ClientService } from './client-service.js';
import { CredentialHasher, loadOrCreatePepper } from './keyed-hash.js';
import { systemClock, type Clock } from './lifetimes.js';
import { TokenService } from './token-service.js';
import { TokenStore } from './token-store.js';

export interface AuthServices {
  clients: ClientService;
  tokens: TokenService;
  close(): void;
}

export interface AuthServicesOptions {
  paths: DataPaths;
  settings: SettingsStore;
  recorder: ChangeRecorder;
  now?: Clock;
  log?: Logger;
  synchronous?: 'FULL' | 'NORMAL';
}

export async function openAuthServices(options: AuthServicesOptions): Promise<AuthServices> {
  const now = options.now ?? systemClock;
  const hasher = new CredentialHasher(await loadOrCreatePepper(options.paths.pepper, options.log));
  const store = TokenStore.open({
    file: options.paths.authDb,
    ...(options.synchronous ? { synchronous: options.synchronous } : {}),
  });
  const tokens = new TokenService({ store, hasher, now });
  const clients = new ClientService({ settings: options.settings, hasher, tokens, recorder: options.recorder, now });
  return { clients, tokens, close: () => store.close() };
}
