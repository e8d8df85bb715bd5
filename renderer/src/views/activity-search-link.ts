/**
 * Links from the activity charts to the Activity page's search (docs/console.md "Activity at a
 * glance"): the filter travels in the URL (`/activity?who=…&from=…`), so a link can be opened,
 * bookmarked and followed with the keyboard like any other; the search form reads it back.
 */
import { emptyForm, type SearchForm } from './activity-filters.js';

export interface SearchLinkFilter {
  /** ISO 8601 bounds of the time range, [from, to). */
  from: string;
  to: string;
  who?: string;
  /** A folder: the search finds the paths under it. */
  folder?: string;
  /** The Process detail's value. */
  process?: string;
}

/** The folder with its separator, so `/srv/a` does not also find `/srv/ab`. */
function folderPrefix(folder: string): string {
  if (folder.endsWith('/') || folder.endsWith('\\')) return folder;
  return folder.includes('\\') && !folder.includes('/') ? `${folder}\\` : `${folder}/`;
}

export function searchLink(filter: SearchLinkFilter): string {
  const params = new URLSearchParams({ from: filter.from, to: filter.to });
  if (filter.who !== undefined) params.set('who', filter.who);
  if (filter.folder !== undefined) params.set('what', folderPrefix(filter.folder));
  if (filter.process !== undefined) params.set('detail', filter.process);
  return `/activity?${params.toString()}`;
}

/** A `datetime-local` value (local time, seconds) for an ISO instant. */
function localInput(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  const pad = (n: number): string => String(n).padStart(2, '0');
  return (
    `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}` +
    `T${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`
  );
}

/** The search form a link asks for, or null when the URL carries no filter. */
export function formFromQuery(search: string): SearchForm | null {
  const params = new URLSearchParams(search);
  const from = params.get('from');
  const to = params.get('to');
  const who = params.get('who');
  const what = params.get('what');
  const detail = params.get('detail');
  if (from === null && to === null && who === null && what === null && detail === null) return null;
  const form = emptyForm();
  if (who !== null) Object.assign(form, { who, whoOperator: 'Equals' });
  if (what !== null) Object.assign(form, { what, whatOperator: 'StartsWith' });
  if (detail !== null) Object.assign(form, { detail, detailOperator: 'Equals' });
  if (from !== null || to !== null) {
    form.time = 'custom';
    form.from = from === null ? '' : localInput(from);
    form.to = to === null ? '' : localInput(to);
  }
  return form;
}
