/**
 * The `alerts` section of settings.json (docs/alerts.md): the alert rules. A file without the
 * key gets the default rules; an empty list means no alerts. Limits and words come from
 * shared/alert-rule.ts, which the console's form checks against too.
 */
import { z } from 'zod';
import {
  ALERT_ACTIONS,
  ALERT_LIMITS,
  ALERT_RULE_MESSAGES as M,
  ALERT_SCOPES,
  defaultAlertRules,
  type AlertRule,
} from '../../shared/alert-rule.js';

const wholeNumber = (field: string, limits: { min: number; max: number }) =>
  z
    .number({ error: M.wholeNumber(field) })
    .int(M.wholeNumber(field))
    .min(limits.min, M.atLeast(field, limits.min))
    .max(limits.max, M.atMost(field, limits.max));

export const alertRuleSchema = z.strictObject({
  name: z.string({ error: M.nameType }).trim().min(1, M.nameEmpty).max(ALERT_LIMITS.nameLength, M.nameLong),
  actions: z
    .array(z.enum(ALERT_ACTIONS, { error: M.action }), { error: M.actionsType })
    .min(1, M.actionsEmpty)
    .refine((actions) => new Set(actions).size === actions.length, M.actionTwice),
  threshold: wholeNumber('threshold', ALERT_LIMITS.threshold),
  windowSeconds: wholeNumber('window', ALERT_LIMITS.windowSeconds),
  per: z.enum(ALERT_SCOPES, { error: M.per }).default('actor'),
  enabled: z.boolean({ error: M.enabled }).default(true),
}) satisfies z.ZodType<AlertRule, unknown>;

/** Rules are named in alerts and addressed by name, so two cannot share one (case aside). */
export const alertsSettingsSchema = z
  .array(alertRuleSchema)
  .max(ALERT_LIMITS.rules, `at most ${ALERT_LIMITS.rules} alert rules`)
  .superRefine((rules, ctx) => {
    const seen = new Set<string>();
    rules.forEach((rule, index) => {
      const key = rule.name.toLowerCase();
      if (seen.has(key)) ctx.addIssue({ code: 'custom', path: [index, 'name'], message: M.nameTaken(rule.name) });
      seen.add(key);
    });
  })
  .default(defaultAlertRules);
