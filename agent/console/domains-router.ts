/**
 * Console API for directory domains (shared/console-api.ts `ConsoleDomainPaths`, docs/directory.md):
 * list with status and policies, add, edit, enable or disable, remove, test the connection.
 * Handlers check the body's shape and call the DomainService, which validates the fields, keeps
 * the password in secrets/ and records each change. The password is never returned or logged.
 */
import { z } from 'zod';
import {
  ConsoleDomainPaths,
  type DomainSummary,
  type DomainTestResult,
  type RemovedDomainResponse,
} from '../../shared/console-api.js';
import type { DomainSettings } from '../config/directory-schema.js';
import type { SettingsStore } from '../config/settings-store.js';
import { testConnection } from '../directory/connection-test.js';
import type { DomainStatusBoard } from '../directory/domain-status.js';
import { pathParam } from '../http/api-router.js';
import { readJsonObject } from '../http/json-body.js';
import { parseInput } from '../http/parse-input.js';
import type { DomainFields, DomainService } from '../resources/domain-service.js';
import { domainSummary } from '../resources/domain-summary.js';
import { invalidField, ServiceError } from '../util/service-error.js';
import type { ConsoleRoutes } from './console-app.js';
import { consoleAuth } from './console-guard.js';
import { requiredField } from './console-input.js';

const DomainBody = z.object({
  name: z.string(requiredField('name', 'a string')),
  ldapServer: z.string(requiredField('ldapServer', 'an ldap:// or ldaps:// address')),
  userName: z.string(requiredField('userName', 'a bind DN')),
  password: z.string(requiredField('password', 'a string')).optional(),
  baseDn: z.string(requiredField('baseDn', 'a DN')).optional(),
  pollingIntervalSeconds: z.number(requiredField('pollingIntervalSeconds', 'a number of seconds')).optional(),
  tls: z.enum(['starttls', 'none'], requiredField('tls', '"starttls" or "none"')).optional(),
  caFile: z.string(requiredField('caFile', 'a file path')).optional(),
  isEnabled: z.boolean(requiredField('isEnabled', 'true or false')).optional(),
  comment: z.string(requiredField('comment', 'a string')).optional(),
});
type DomainBody = z.infer<typeof DomainBody>;

export interface DomainsRouterDeps {
  domains: DomainService;
  settings: SettingsStore;
  status: DomainStatusBoard;
}

export function buildDomainsRouter(deps: DomainsRouterDeps): ConsoleRoutes {
  const { domains } = deps;
  const summary = async (domain: DomainSettings): Promise<DomainSummary> =>
    domainSummary(domain, {
      policies: deps.settings.current.policies,
      hasPassword: await domains.hasPassword(domain.id),
      status: deps.status.get(domain.id) ?? null,
    });
  const one = `${ConsoleDomainPaths.domains}/:id`;
  return (router) => {
    router.get(ConsoleDomainPaths.domains, async (ctx) => {
      ctx.body = await Promise.all(domains.list().map(summary));
    });

    router.post(ConsoleDomainPaths.domains, async (ctx) => {
      const actor = consoleAuth(ctx).actor;
      const body = parseInput(DomainBody, await readJsonObject(ctx));
      if (body.password === undefined) throw invalidField('password', 'the password of the bind account is required');
      ctx.status = 201;
      ctx.body = await summary(await domains.add(body, actor));
    });

    router.put(one, async (ctx) => {
      const actor = consoleAuth(ctx).actor;
      const body = parseInput(DomainBody, await readJsonObject(ctx));
      const fields: DomainFields = body;
      const updated = await domains.update(
        pathParam(ctx, 'id'),
        (current) => ({ ...current, ...fields, isEnabled: fields.isEnabled ?? current.isEnabled }),
        actor,
      );
      ctx.body = await summary(updated);
    });

    router.delete(one, async (ctx) => {
      const actor = consoleAuth(ctx).actor;
      const id = pathParam(ctx, 'id');
      await domains.remove(id, actor);
      const body: RemovedDomainResponse = { id, removed: true };
      ctx.body = body;
    });

    router.post(`${one}/test`, async (ctx) => {
      const id = pathParam(ctx, 'id');
      const domain = domains.find(id);
      if (!domain) throw new ServiceError('not_found', `there is no domain with id "${id}"`, 'id');
      const result: DomainTestResult = await testConnection(domain, await domains.bindPassword(id));
      ctx.body = result;
    });
  };
}
