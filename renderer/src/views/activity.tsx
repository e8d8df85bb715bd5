/**
 * Activity: the live feed of records as they are committed, and a search of the audit database
 * with the audit API's filters (who, action, path, source, time), newest first and paged.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { ActivityRecord } from '../../../shared/activity-record.js';
import type { ActivityPageCursor } from '../../../shared/console-api.js';
import { FILTER_SPECS, FilterError } from '../../../shared/audit-filters.js';
import { api, feedUrl, subscribe } from '../api-client.js';
import { ErrorMessage } from '../components/error-message.js';
import { Page } from '../components/page.js';
import { countOf, formatCount } from '../format.js';
import { ActivityTable } from './activity-table.js';
import { buildFilterList, emptyForm, type SearchForm } from './activity-filters.js';
import { ActivityGlance } from './activity-glance.js';
import { formFromQuery } from './activity-search-link.js';
import { useQuery } from '../router.js';

const FEED_KEEP = 500;

function LiveFeed() {
  const [records, setRecords] = useState<ActivityRecord[]>([]);
  const [state, setState] = useState('Connecting…');
  const [paused, setPaused] = useState(false);
  const [missed, setMissed] = useState(0);
  const [dropped, setDropped] = useState(0);
  const hold = useRef(false);
  useEffect(() => {
    let cancelled = false;
    const add = (batch: ActivityRecord[]): void =>
      setRecords((current) => {
        const seen = new Set(current.map((r) => r.RID));
        return [...batch.filter((r) => !seen.has(r.RID)), ...current].slice(0, FEED_KEEP);
      });
    const subscription = subscribe(
      feedUrl,
      {
        ready: () => {
          setState('Live: new records appear at the top as they are stored.');
          // Start with what happened just before: the latest records, then whatever streams in.
          api.searchActivity({ count: 50 }).then(
            (page) =>
              !cancelled &&
              setRecords((current) => {
                const seen = new Set(current.map((r) => r.RID));
                return [...current, ...page.records.filter((r) => !seen.has(r.RID))].slice(0, FEED_KEEP);
              }),
            () => undefined,
          );
        },
        records: (data) => {
          const batch = [...(data as ActivityRecord[])].reverse();
          if (hold.current) {
            setMissed((n) => n + batch.length);
            return;
          }
          add(batch);
        },
        dropped: (data) => setDropped((n) => n + (data as { count: number }).count),
      },
      (s) => s !== 'open' && setState(s === 'retrying' ? 'The connection dropped; reconnecting…' : 'Connecting…'),
    );
    return () => {
      cancelled = true;
      subscription.close();
    };
  }, []);
  const togglePause = (): void => {
    const next = !paused;
    setPaused(next);
    if (!next) setMissed(0);
    hold.current = next;
  };
  return (
    <section aria-labelledby="feed-title">
      <div class="section-head">
        <h2 id="feed-title" class="visually-hidden">
          Live feed
        </h2>
        <p class="muted grow" role="status">
          {paused ? `Paused: ${formatCount(missed)} new records not shown.` : state}
          {dropped > 0 ? ` ${formatCount(dropped)} records were too many to show; search finds them.` : ''}
        </p>
        <button type="button" class="secondary small" onClick={togglePause} aria-pressed={paused}>
          {paused ? 'Resume the feed' : 'Pause the feed'}
        </button>
        <button type="button" class="secondary small" onClick={() => setRecords([])}>
          Clear
        </button>
      </div>
      {records.length === 0 ? (
        <p>No activity yet. Records appear here when files change in a watched folder or a setting changes.</p>
      ) : (
        <ActivityTable records={records} caption="Live activity, newest first" />
      )}
    </section>
  );
}

const TEXT_OPERATORS = FILTER_SPECS.What.operators;
const ACTIONS = ['Added', 'Modified', 'Removed', 'Renamed', 'Moved'];
const SOURCES = ['File System', 'Vigil Agent', 'Vigil API'];
const TIMES: Array<[SearchForm['time'], string]> = [
  ['', 'Any time'],
  ['Today', 'Today'],
  ['Yesterday', 'Yesterday'],
  ['LastSevenDays', 'Last 7 days'],
  ['LastThirtyDays', 'Last 30 days'],
  ['custom', 'Between…'],
];

function TextFilterField(props: {
  id: string;
  label: string;
  value: string;
  operator: string;
  error?: string | undefined;
  onValue: (v: string) => void;
  onOperator: (o: string) => void;
}) {
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      <div class="with-select">
        <select
          aria-label={`${props.label}: how to match`}
          value={props.operator}
          onChange={(e) => props.onOperator((e.currentTarget as HTMLSelectElement).value)}
        >
          {TEXT_OPERATORS.filter((o) => o !== 'InGroup' && o !== 'NotInGroup').map((o) => (
            <option key={o} value={o}>
              {o.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase()}
            </option>
          ))}
        </select>
        <input
          id={props.id}
          value={props.value}
          aria-invalid={props.error ? 'true' : undefined}
          aria-describedby={`${props.id}-error`}
          onInput={(e) => props.onValue((e.currentTarget as HTMLInputElement).value)}
        />
      </div>
      <p id={`${props.id}-error`} class="field-error">
        {props.error ?? ''}
      </p>
    </div>
  );
}

function Search({ query }: { query: string }) {
  const [form, setForm] = useState<SearchForm>(() => formFromQuery(query) ?? emptyForm());
  const [problem, setProblem] = useState<{ field: string; message: string } | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [results, setResults] = useState<ActivityRecord[] | null>(null);
  const [pages, setPages] = useState<Array<ActivityPageCursor | null>>([]);
  const [next, setNext] = useState<ActivityPageCursor | null>(null);
  const [filterList, setFilterList] = useState<Record<string, unknown>>({});

  const set = (change: Partial<SearchForm>): void => {
    setForm({ ...form, ...change });
    setProblem(null);
  };
  const run = async (
    list: Record<string, unknown>,
    page: ActivityPageCursor | null,
    history: Array<ActivityPageCursor | null>,
  ) => {
    setBusy(true);
    setError(null);
    try {
      const answer = await api.searchActivity({ filterList: list, count: form.pageSize, ...(page ? { page } : {}) });
      setResults(answer.records);
      setNext(answer.next);
      setPages(history);
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };
  const submit = (event: Event): void => {
    event.preventDefault();
    try {
      const list = buildFilterList(form);
      setFilterList(list);
      void run(list, null, [null]);
    } catch (caught) {
      if (caught instanceof FilterError) setProblem({ field: caught.location, message: caught.message });
      else setError(caught);
    }
  };
  // A link from the charts (activity-search-link.ts) fills the form and searches at once.
  useEffect(() => {
    const linked = formFromQuery(query);
    if (!linked) return;
    setForm(linked);
    setProblem(null);
    try {
      const list = buildFilterList(linked);
      setFilterList(list);
      void run(list, null, [null]);
    } catch (caught) {
      if (caught instanceof FilterError) setProblem({ field: caught.location, message: caught.message });
      else setError(caught);
    }
  }, [query]);
  const fieldError = (field: string): string | undefined => (problem?.field === field ? problem.message : undefined);
  const pageNumber = pages.length;
  return (
    <section aria-labelledby="search-title">
      <h2 id="search-title" class="visually-hidden">
        Search
      </h2>
      <form class="search-form" onSubmit={submit} noValidate>
        <div class="field-grid">
          <TextFilterField
            id="f-who"
            label="Who"
            value={form.who}
            operator={form.whoOperator}
            error={fieldError('Who')}
            onValue={(who) => set({ who })}
            onOperator={(whoOperator) => set({ whoOperator })}
          />
          <TextFilterField
            id="f-what"
            label="Path (What)"
            value={form.what}
            operator={form.whatOperator}
            error={fieldError('What')}
            onValue={(what) => set({ what })}
            onOperator={(whatOperator) => set({ whatOperator })}
          />
          <TextFilterField
            id="f-detail"
            label="Detail (process, size…)"
            value={form.detail}
            operator={form.detailOperator}
            error={fieldError('Detail')}
            onValue={(detail) => set({ detail })}
            onOperator={(detailOperator) => set({ detailOperator })}
          />
          <div class="field">
            <label for="f-action">Action</label>
            <select
              id="f-action"
              value={form.action}
              onChange={(e) => set({ action: (e.currentTarget as HTMLSelectElement).value })}
            >
              <option value="">Any action</option>
              {ACTIONS.map((a) => (
                <option key={a}>{a}</option>
              ))}
            </select>
          </div>
          <div class="field">
            <label for="f-source">Source</label>
            <select
              id="f-source"
              value={form.source}
              onChange={(e) => set({ source: (e.currentTarget as HTMLSelectElement).value })}
            >
              <option value="">Any source</option>
              {SOURCES.map((s) => (
                <option key={s}>{s}</option>
              ))}
            </select>
          </div>
          <div class="field">
            <label for="f-time">Time</label>
            <select
              id="f-time"
              value={form.time}
              onChange={(e) => set({ time: (e.currentTarget as HTMLSelectElement).value as SearchForm['time'] })}
            >
              {TIMES.map(([value, label]) => (
                <option key={value} value={value}>
                  {label}
                </option>
              ))}
            </select>
          </div>
          {form.time === 'custom' ? (
            <>
              <div class="field">
                <label for="f-from">From (local time)</label>
                <input
                  id="f-from"
                  type="datetime-local"
                  step={1}
                  value={form.from}
                  aria-invalid={fieldError('When') ? 'true' : undefined}
                  aria-describedby="f-when-error"
                  onInput={(e) => set({ from: (e.currentTarget as HTMLInputElement).value })}
                />
              </div>
              <div class="field">
                <label for="f-to">To (local time)</label>
                <input
                  id="f-to"
                  type="datetime-local"
                  step={1}
                  value={form.to}
                  aria-invalid={fieldError('When') ? 'true' : undefined}
                  aria-describedby="f-when-error"
                  onInput={(e) => set({ to: (e.currentTarget as HTMLInputElement).value })}
                />
              </div>
              <p id="f-when-error" class="field-error">
                {fieldError('When') ?? ''}
              </p>
            </>
          ) : null}
          <div class="field">
            <label for="f-size">Per page</label>
            <select
              id="f-size"
              value={String(form.pageSize)}
              onChange={(e) => set({ pageSize: Number((e.currentTarget as HTMLSelectElement).value) })}
            >
              {[50, 100, 200, 500].map((n) => (
                <option key={n} value={String(n)}>
                  {n}
                </option>
              ))}
            </select>
          </div>
        </div>
        <div class="buttons left">
          <button type="submit" disabled={busy}>
            Search
          </button>
          <button
            type="button"
            class="secondary"
            onClick={() => {
              setForm(emptyForm());
              setProblem(null);
              setResults(null);
            }}
          >
            Clear
          </button>
        </div>
      </form>
      <ErrorMessage error={error} prefix="The search failed" />
      <p role="status" class="muted">
        {busy
          ? 'Searching…'
          : results
            ? `Page ${pageNumber}: ${countOf(results.length, 'record', 'records')}, newest first.`
            : ''}
      </p>
      {results && results.length === 0 ? <p>No record matches.</p> : null}
      {results && results.length > 0 ? (
        <ActivityTable records={results} caption="Search results, newest first" />
      ) : null}
      {results ? (
        <nav class="pager" aria-label="Result pages">
          <button
            type="button"
            class="secondary"
            disabled={busy || pages.length <= 1}
            onClick={() => {
              const history = pages.slice(0, -1);
              void run(filterList, history[history.length - 1] ?? null, history);
            }}
          >
            Newer
          </button>
          <button
            type="button"
            class="secondary"
            disabled={busy || next === null}
            onClick={() => void run(filterList, next, [...pages, next])}
          >
            Older
          </button>
        </nav>
      ) : null}
    </section>
  );
}

type Tab = 'feed' | 'search' | 'glance';
const TABS: Array<[Tab, string]> = [
  ['feed', 'Live feed'],
  ['search', 'Search'],
  ['glance', 'At a glance'],
];

export function ActivityPage() {
  const query = useQuery();
  const [tab, setTab] = useState<Tab>(() => (formFromQuery(query) ? 'search' : 'feed'));
  // Following a chart's link from this page's own glance tab shows the search it opened.
  useEffect(() => {
    if (formFromQuery(query)) setTab('search');
  }, [query]);
  const onKey = (event: KeyboardEvent): void => {
    if (event.key !== 'ArrowRight' && event.key !== 'ArrowLeft') return;
    const at = TABS.findIndex(([id]) => id === tab);
    const next = TABS[(at + (event.key === 'ArrowRight' ? 1 : TABS.length - 1)) % TABS.length]![0];
    setTab(next);
    window.setTimeout(() => document.getElementById(`tab-${next}`)?.focus(), 0);
  };
  return (
    <Page title="Activity">
      <div role="tablist" aria-label="Activity views" class="tabs" onKeyDown={onKey}>
        {TABS.map(([id, label]) => (
          <button
            key={id}
            id={`tab-${id}`}
            type="button"
            role="tab"
            aria-selected={tab === id}
            aria-controls={`panel-${id}`}
            tabIndex={tab === id ? 0 : -1}
            onClick={() => setTab(id)}
          >
            {label}
          </button>
        ))}
      </div>
      <div id="panel-feed" role="tabpanel" aria-labelledby="tab-feed" hidden={tab !== 'feed'}>
        <LiveFeed />
      </div>
      <div id="panel-search" role="tabpanel" aria-labelledby="tab-search" hidden={tab !== 'search'}>
        <Search query={query} />
      </div>
      <div id="panel-glance" role="tabpanel" aria-labelledby="tab-glance" hidden={tab !== 'glance'}>
        {tab === 'glance' ? <ActivityGlance /> : null}
      </div>
    </Page>
  );
}
