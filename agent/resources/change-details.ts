/**
 * Before/After details of a configuration change for the self-audit record (docs/activity-pipeline.md):
 * one detail per top-level field whose value changed. Lists are written `a; b`, objects as
 * JSON. Secrets are never written: only whether one is set. Long values (policy XML) are
 * summarised by their length and a short hash, so a record stays readable and small.
 */
import crypto from 'node:crypto';
import type { ChangeDetail } from '../pipeline/change-recorder.js';

const LONG = 1000;

export interface DetailOptions {
  /** Fields whose values are secrets: written as `(set)` / `(not set)`. */
  secrets?: readonly string[];
  /** Fields left out of the details (ids, timestamps that change with every change). */
  skip?: readonly string[];
}

function text(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  let out: string;
  if (typeof value === 'string') out = value;
  else if (Array.isArray(value) && value.every((v) => typeof v === 'string')) out = value.join('; ');
  else out = JSON.stringify(value);
  if (out.length <= LONG) return out;
  const hash = crypto.createHash('sha256').update(out).digest('hex').slice(0, 16);
  return `(${out.length} characters, SHA-256 ${hash}…)`;
}

export function changeDetails(
  before: Readonly<Record<string, unknown>> | null,
  after: Readonly<Record<string, unknown>> | null,
  options: DetailOptions = {},
): ChangeDetail[] {
  const keys = new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})]);
  const details: ChangeDetail[] = [];
  for (const key of keys) {
    if (options.skip?.includes(key)) continue;
    const b = before?.[key];
    const a = after?.[key];
    if (JSON.stringify(b) === JSON.stringify(a)) continue;
    const detail: ChangeDetail = { PropertyName: key };
    if (options.secrets?.includes(key)) {
      if (before) detail.Before = b === undefined || b === '' ? '(not set)' : '(set)';
      if (after) detail.After = a === undefined || a === '' ? '(not set)' : '(set)';
    } else {
      const bt = text(b);
      const at = text(a);
      if (bt !== undefined) detail.Before = bt;
      if (at !== undefined) detail.After = at;
    }
    details.push(detail);
  }
  return details;
}
