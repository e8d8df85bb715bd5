/**
 * Console API for alerts (shared/console-api.ts `ConsoleAlertPaths`, docs/alerts.md): the
 * unacknowledged alerts, acknowledging one or all, and the alert rules. The services validate
 * (errors name the field) and self-audit every change with the console's actor.
 */
import {
  ConsoleAlertPaths,
  type AcknowledgedResponse,
  type RemovedAlertRuleResponse,
} from '../../shared/console-api.js';
import type { AlertRulesService } from '../alerts/alert-rules.js';
import type { AlertService } from '../alerts/alert-service.js';
import { pathParam } from '../http/api-router.js';
import { readJsonObject } from '../http/json-body.js';
import type { ConsoleRoutes } from './console-app.js';
import { consoleAuth } from './console-guard.js';

export function buildAlertsRouter(alerts: AlertService, rules: AlertRulesService): ConsoleRoutes {
  const oneRule = `${ConsoleAlertPaths.rules}/:name`;
  return (router) => {
    router.get(ConsoleAlertPaths.alerts, (ctx) => {
      ctx.body = alerts.unacknowledged();
    });
    router.post(ConsoleAlertPaths.acknowledgeAll, (ctx) => {
      const body: AcknowledgedResponse = { acknowledged: alerts.acknowledgeAll(consoleAuth(ctx).actor) };
      ctx.body = body;
    });
    router.post(`${ConsoleAlertPaths.alerts}/:id/acknowledge`, (ctx) => {
      alerts.acknowledge(pathParam(ctx, 'id'), consoleAuth(ctx).actor);
      const body: AcknowledgedResponse = { acknowledged: 1 };
      ctx.body = body;
    });

    router.get(ConsoleAlertPaths.rules, (ctx) => {
      ctx.body = rules.list();
    });
    router.post(ConsoleAlertPaths.rules, async (ctx) => {
      const actor = consoleAuth(ctx).actor;
      const rule = await rules.add(await readJsonObject(ctx), actor);
      ctx.status = 201;
      ctx.body = rule;
    });
    router.put(oneRule, async (ctx) => {
      const actor = consoleAuth(ctx).actor;
      ctx.body = await rules.replace(pathParam(ctx, 'name'), await readJsonObject(ctx), actor);
    });
    router.delete(oneRule, async (ctx) => {
      const removed = await rules.remove(pathParam(ctx, 'name'), consoleAuth(ctx).actor);
      const body: RemovedAlertRuleResponse = { name: removed.name, removed: true };
      ctx.body = body;
    });
  };
}
