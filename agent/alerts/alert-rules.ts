/**
 * Adding, changing and removing alert rules (docs/alerts.md), for the console. Rules live in
 * settings.json (`alerts`); the settings store validates and writes them, and every change is
 * self-audited like any settings change, with the changed fields as Before/After details.
 */
import type { AlertRule, AlertRuleInput } from '../../shared/alert-rule.js';
import { alertRuleSchema } from '../config/alerts-schema.js';
import type { SettingsStore } from '../config/settings-store.js';
import type { ChangeDetail, ChangeRecorder } from '../pipeline/change-recorder.js';
import { ServiceError, invalidField, takenBy } from '../util/service-error.js';
import { fieldProblems } from '../util/validation-errors.js';

const FIELDS = ['name', 'actions', 'threshold', 'windowSeconds', 'per', 'enabled'] as const;

function describe(rule: AlertRule, field: (typeof FIELDS)[number]): string {
  const value = rule[field];
  return Array.isArray(value) ? value.join(', ') : String(value);
}

function parseRule(input: unknown): AlertRule {
  const result = alertRuleSchema.safeParse(input);
  if (result.success) return result.data;
  const problem = fieldProblems(result.error)[0] ?? { field: '', message: 'invalid rule' };
  throw invalidField(problem.field, problem.message);
}

export class AlertRulesService {
  constructor(
    private readonly settings: SettingsStore,
    private readonly recorder: ChangeRecorder,
  ) {}

  list(): AlertRule[] {
    return structuredClone(this.settings.current.alerts);
  }

  async add(input: AlertRuleInput | unknown, actor: string): Promise<AlertRule> {
    const rule = parseRule(input);
    this.checkNameFree(rule.name, null);
    await this.settings.update((draft) => {
      draft.alerts.push(rule);
    });
    this.record(
      actor,
      'Added',
      rule.name,
      FIELDS.map((f) => ({ PropertyName: f, After: describe(rule, f) })),
    );
    return rule;
  }

  async replace(name: string, input: AlertRuleInput | unknown, actor: string): Promise<AlertRule> {
    const before = this.find(name);
    const rule = parseRule(input);
    this.checkNameFree(rule.name, before.name);
    await this.settings.update((draft) => {
      const index = draft.alerts.findIndex((r) => r.name === before.name);
      draft.alerts[index] = rule;
    });
    const details: ChangeDetail[] = FIELDS.filter((f) => describe(before, f) !== describe(rule, f)).map((f) => ({
      PropertyName: f,
      Before: describe(before, f),
      After: describe(rule, f),
    }));
    if (details.length > 0) this.record(actor, 'Modified', rule.name, details);
    return rule;
  }

  async remove(name: string, actor: string): Promise<AlertRule> {
    const rule = this.find(name);
    await this.settings.update((draft) => {
      draft.alerts = draft.alerts.filter((r) => r.name !== rule.name);
    });
    this.record(
      actor,
      'Removed',
      rule.name,
      FIELDS.map((f) => ({ PropertyName: f, Before: describe(rule, f) })),
    );
    return rule;
  }

  private find(name: string): AlertRule {
    const rule = this.settings.current.alerts.find((r) => r.name.toLowerCase() === name.toLowerCase());
    if (!rule) throw new ServiceError('not_found', `no alert rule is named "${name}"`, 'name');
    return rule;
  }

  private checkNameFree(name: string, except: string | null): void {
    const holder = this.settings.current.alerts.find(
      (r) => r.name.toLowerCase() === name.toLowerCase() && r.name !== except,
    );
    if (holder) throw takenBy('name', `another rule is already named "${holder.name}"`, holder.name);
  }

  private record(actor: string, action: 'Added' | 'Modified' | 'Removed', what: string, details: ChangeDetail[]): void {
    this.recorder.recordChange({ actor, action, objectType: 'Alert rule', what, id: what, details });
  }
}
