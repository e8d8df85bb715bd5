/**
 * An alert rule (docs/alerts.md): fire when more than `threshold` records with one of `actions`
 * come from one actor (or one host) within `windowSeconds`. The agent's settings schema
 * (agent/config/alerts-schema.ts) and the console's form check a rule against the limits and
 * words here, so both name a wrong field the same way.
 */

/** The record actions a rule may count: the file actions and `Read` (docs/attribution.md). */
export const ALERT_ACTIONS = ['Added', 'Modified', 'Removed', 'Renamed', 'Moved', 'Read'] as const;
export type AlertAction = (typeof ALERT_ACTIONS)[number];

/** `actor`: counted per `Who`; `host`: counted per `Where`, whoever acted. */
export const ALERT_SCOPES = ['actor', 'host'] as const;
export type AlertScope = (typeof ALERT_SCOPES)[number];

/** A window keeps one counter per second, so its length bounds the memory of every counted actor. */
export const ALERT_LIMITS = {
  nameLength: 100,
  threshold: { min: 1, max: 1_000_000 },
  windowSeconds: { min: 1, max: 3600 },
  rules: 100,
} as const;

export interface AlertRule {
  name: string;
  actions: AlertAction[];
  /** The rule fires when the count goes above this number. */
  threshold: number;
  windowSeconds: number;
  per: AlertScope;
  enabled: boolean;
}

/** What a caller gives: `per` and `enabled` may be left out (actor, true). */
export type AlertRuleInput = Omit<AlertRule, 'per' | 'enabled'> & Partial<Pick<AlertRule, 'per' | 'enabled'>>;

/** The words of each check, by field. */
export const ALERT_RULE_MESSAGES = {
  nameType: 'the name must be a string',
  nameEmpty: 'the name must not be empty',
  nameLong: `the name must be at most ${ALERT_LIMITS.nameLength} characters`,
  actionsType: 'the actions must be a list',
  action: `an action must be one of ${ALERT_ACTIONS.join(', ')}`,
  actionsEmpty: 'choose at least one action',
  actionTwice: 'an action is listed twice',
  per: 'per must be "actor" or "host"',
  enabled: 'enabled must be true or false',
  wholeNumber: (field: string) => `the ${field} must be a whole number`,
  atLeast: (field: string, min: number) => `the ${field} must be at least ${min}`,
  atMost: (field: string, max: number) => `the ${field} must be at most ${max.toLocaleString('en-US')}`,
  nameTaken: (name: string) => `another rule is already named "${name}"`,
} as const;

/** The rules a settings file without an `alerts` key has: mass deletion and mass modification. */
export function defaultAlertRules(): AlertRule[] {
  return [
    { name: 'Mass deletion', actions: ['Removed'], threshold: 500, windowSeconds: 60, per: 'actor', enabled: true },
    {
      name: 'Mass modification',
      actions: ['Modified'],
      threshold: 1000,
      windowSeconds: 60,
      per: 'actor',
      enabled: true,
    },
  ];
}
