/**
 * The alert rule form's check, with zod against the limits and words of shared/alert-rule.ts
 * (the agent checks the same way: agent/config/alerts-schema.ts), so a mistake is named at its
 * field before the form is sent. The agent has the last word; its error names the field too.
 */
import { z } from 'zod';
import {
  ALERT_ACTIONS,
  ALERT_LIMITS,
  ALERT_RULE_MESSAGES as M,
  ALERT_SCOPES,
  type AlertRule,
} from '../../../shared/alert-rule.js';

/** The form as typed: numbers are still text. */
export interface RuleDraft {
  name: string;
  actions: string[];
  threshold: string;
  windowSeconds: string;
  per: string;
  enabled: boolean;
}

export type RuleField = 'name' | 'actions' | 'threshold' | 'windowSeconds' | 'per';

const wholeNumber = (field: string, limits: { min: number; max: number }) =>
  z
    .string()
    .trim()
    .regex(/^\d+$/, M.wholeNumber(field))
    .transform(Number)
    .pipe(z.number().min(limits.min, M.atLeast(field, limits.min)).max(limits.max, M.atMost(field, limits.max)));

const draftSchema = z.object({
  name: z.string().trim().min(1, M.nameEmpty).max(ALERT_LIMITS.nameLength, M.nameLong),
  actions: z
    .array(z.enum(ALERT_ACTIONS, { error: M.action }))
    .min(1, M.actionsEmpty)
    .refine((a) => new Set(a).size === a.length, M.actionTwice),
  threshold: wholeNumber('threshold', ALERT_LIMITS.threshold),
  windowSeconds: wholeNumber('window', ALERT_LIMITS.windowSeconds),
  per: z.enum(ALERT_SCOPES, { error: M.per }),
  enabled: z.boolean(),
});

export function draftOf(rule: AlertRule | null): RuleDraft {
  return rule
    ? {
        name: rule.name,
        actions: [...rule.actions],
        threshold: String(rule.threshold),
        windowSeconds: String(rule.windowSeconds),
        per: rule.per,
        enabled: rule.enabled,
      }
    : { name: '', actions: ['Removed'], threshold: '500', windowSeconds: '60', per: 'actor', enabled: true };
}

/** The rule, or the first problem of each field. */
export function checkDraft(
  draft: RuleDraft,
): { ok: true; rule: AlertRule } | { ok: false; problems: Partial<Record<RuleField, string>> } {
  const result = draftSchema.safeParse(draft);
  if (result.success) return { ok: true, rule: result.data };
  const problems: Partial<Record<RuleField, string>> = {};
  for (const issue of result.error.issues) {
    const field = issue.path[0] as RuleField;
    problems[field] ??= issue.message;
  }
  return { ok: false, problems };
}
