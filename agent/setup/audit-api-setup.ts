/**
 * The audit API (docs/audit-api.md): its users, the search and write service over the audit
 * stores, the worker that parses request bodies, and the Koa application the listener serves.
 */
import type Koa from 'koa';
import type { ActivityRecord } from '../../shared/activity-record.js';
import type { ChangeRecorder } from '../pipeline/change-recorder.js';
import type { DataPaths } from '../config/data-dir.js';
import type { SettingsStore } from '../config/settings-store.js';
import type { Logger } from '../log/logger.js';
import { buildAuditApp } from '../audit/audit-app.js';
import { AUDIT_LIMITS, type AuditLimits } from '../audit/audit-limits.js';
import { AuditService } from '../audit/audit-service.js';
import { BodyParsePool } from '../audit/body-parse-pool.js';
import { MarkCodec } from '../audit/continuation-mark.js';
import { SqliteAuditRecords } from '../store/sqlite-audit-records.js';
import { MemberAuditRecords } from '../fleet/pg-audit-member.js';
import type { FleetAccess } from '../fleet/pg-audit-records.js';
import { platformGroups, type GroupResolver } from '../platform/local-groups.js';
import { AuditUserService } from '../users/audit-user-service.js';
import { withCleanups } from './cleanups.js';
import type { AuditStores } from './stores.js';

export interface AuditApiSetup {
  app: Koa;
  users: AuditUserService;
  service: AuditService;
  stop(): Promise<void>;
}

export function buildAuditApi(deps: {
  paths: DataPaths;
  settings: SettingsStore;
  stores: AuditStores;
  recorder: ChangeRecorder;
  log: Logger;
  localGroups?: GroupResolver | undefined;
  /** Overrides of the audit API's limits (tests make them small). */
  limits?: Partial<AuditLimits> | undefined;
  /** Where records the audit API stored go next: the pipeline's after-commit path. */
  committed: (records: readonly ActivityRecord[]) => void;
  /**
   * The agent's fleet membership now, or null (agent/setup/fleet-setup.ts): while it is a
   * member, the audit API serves the fleet database (docs/audit-api.md "Fleet").
   */
  fleet?: () => FleetAccess | null;
}): Promise<AuditApiSetup> {
  const { settings, stores } = deps;
  return withCleanups(deps.log, async (cleanups) => {
    const parsePool = new BodyParsePool();
    cleanups.add(() => parsePool.close());
    const users = new AuditUserService(settings, { recorder: deps.recorder });
    cleanups.add(() => users.close());
    const local = new SqliteAuditRecords({
      reader: stores.reader,
      writer: stores.writer,
      markKey: await MarkCodec.loadKey(deps.paths.secrets),
      written: () => stores.index.poke(),
    });
    const fleet = deps.fleet;
    const records = fleet ? new MemberAuditRecords({ local, fleet, turns: stores.turns }) : local;
    const service = new AuditService({
      records,
      reader: stores.reader,
      groups: deps.localGroups ?? platformGroups(),
      committed: deps.committed,
    });
    const app = buildAuditApp({
      log: deps.log.child('audit'),
      vendor: () => settings.current.auditApi.vendor,
      users,
      service,
      records,
      parsePool,
      turns: stores.turns,
      limits: { ...AUDIT_LIMITS, ...deps.limits },
    });
    return { app, users, service };
  });
}
