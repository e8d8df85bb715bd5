/**
 * The activity search form and its translation into the audit API's JSON FilterList, with the
 * same checks the agent applies (shared/audit-filters.ts), so a mistake is shown at the field
 * before anything is sent.
 */
import {
  FilterError,
  textCondition,
  whenCondition,
  type FilterCondition,
  type TextFilter,
  type Timeframe,
} from '../../../shared/audit-filters.js';
import { filterListToJson } from '../../../shared/audit-filter-json.js';

export interface SearchForm {
  who: string;
  whoOperator: string;
  what: string;
  whatOperator: string;
  /** Any field of any detail (a process, a size…). */
  detail: string;
  detailOperator: string;
  action: string;
  source: string;
  time: '' | Timeframe | 'custom';
  /** `datetime-local` values (local time). */
  from: string;
  to: string;
  pageSize: number;
}

export const emptyForm = (): SearchForm => ({
  who: '',
  whoOperator: 'Contains',
  what: '',
  whatOperator: 'Contains',
  detail: '',
  detailOperator: 'Contains',
  action: '',
  source: '',
  time: '',
  from: '',
  to: '',
  pageSize: 100,
});

/** A local `datetime-local` value as an ISO date-time with offset, or null when empty. */
function isoOf(local: string): string | null {
  if (!local) return null;
  const date = new Date(local);
  if (Number.isNaN(date.getTime())) throw new FilterError(`"${local}" is not a date and time`, 'When', 'conversion');
  return date.toISOString();
}

/** Throws FilterError whose `location` is the filter name (Who, What, When) at fault. */
export function buildFilterList(form: SearchForm): Record<string, unknown> {
  const conditions: FilterCondition[] = [];
  const text = (filter: TextFilter, value: string, operator?: string): void => {
    if (value.trim() === '') return;
    try {
      conditions.push(textCondition(filter, operator, value.trim(), filter));
    } catch (error) {
      if (error instanceof FilterError) throw new FilterError(error.message, filter);
      throw error;
    }
  };
  text('Who', form.who, form.whoOperator);
  text('What', form.what, form.whatOperator);
  text('Detail', form.detail, form.detailOperator);
  text('Action', form.action, 'Equals');
  text('DataSource', form.source, 'Equals');
  if (form.time === 'custom') {
    const from = isoOf(form.from);
    const to = isoOf(form.to);
    if (from === null && to === null) throw new FilterError('give a start or an end time (or both)', 'When');
    try {
      conditions.push(whenCondition('Equals', { from, to }, 'When'));
    } catch (error) {
      if (error instanceof FilterError) throw new FilterError(error.message, 'When');
      throw error;
    }
  } else if (form.time !== '') {
    conditions.push(whenCondition('Equals', { timeframe: form.time }, 'When'));
  }
  return filterListToJson(conditions);
}
