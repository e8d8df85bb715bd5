/** Builds ActivityRecordSearch XML bodies from conditions, the way a client would write them. */
import type { FilterCondition } from '../../shared/audit-filters.js';

const esc = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

export function filterXml(c: FilterCondition): string {
  const op = ` Operator="${c.operator}"`;
  if (c.filter === 'When') {
    const v = c.value;
    const inner =
      'timeframe' in v
        ? `<${v.timeframe}/>`
        : `${v.from !== null ? `<From>${v.from}</From>` : ''}${v.to !== null ? `<To>${v.to}</To>` : ''}`;
    return `<When${op}>${inner}</When>`;
  }
  if (c.filter === 'WorkingHours')
    return `<WorkingHours${op}><From>${c.value.from}</From><To>${c.value.to}</To></WorkingHours>`;
  return `<${c.filter}${op}>${esc(c.value)}</${c.filter}>`;
}

export function searchXml(conditions: readonly FilterCondition[], ns: string, mark?: string): string {
  return (
    `<?xml version="1.0" encoding="utf-8"?>\n<ActivityRecordSearch xmlns="${ns}">` +
    (mark ? `<ContinuationMark>${mark}</ContinuationMark>` : '') +
    `<FilterList>${conditions.map(filterXml).join('')}</FilterList></ActivityRecordSearch>`
  );
}
