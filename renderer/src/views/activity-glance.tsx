/**
 * Activity at a glance (docs/console.md): records of the last 24 hours (by 15 minutes) or 7 days
 * (by hour) stacked by Action, with a legend, and the top 10 actors, folders and processes of
 * the same range. A bar or a row opens the Activity search with that filter. Screen readers
 * get the counts as a table; the chart works with the keyboard alone (activity-chart.tsx).
 */
import { useState } from 'preact/hooks';
import type { ActivityStatsRange, ActivityStatsResponse, ActivityTopEntry } from '../../../shared/console-api.js';
import { api } from '../api-client.js';
import { ActivityChart, actionColor, type ChartBar } from '../components/activity-chart.js';
import { ErrorMessage } from '../components/error-message.js';
import { formatCount } from '../format.js';
import { navigate } from '../router.js';
import { useResource } from '../use-resource.js';
import { searchLink } from './activity-search-link.js';

const RANGES: Array<[ActivityStatsRange, string]> = [
  ['24h', 'Last 24 hours'],
  ['7d', 'Last 7 days'],
];
const ACTION_ORDER = ['Added', 'Modified', 'Removed', 'Renamed', 'Moved'];

const timeOf = (iso: string): string => new Date(iso).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
const dayOf = (iso: string): string =>
  new Date(iso).toLocaleDateString([], { weekday: 'short', day: 'numeric', month: 'short' });

function spanText(start: string, minutes: number): string {
  const end = new Date(Date.parse(start) + minutes * 60_000).toISOString();
  return `${dayOf(start)} ${timeOf(start)}–${timeOf(end)}`;
}

/** Actions present in the range: the usual ones in their order, then the others by name. */
function actionsOf(stats: ActivityStatsResponse): string[] {
  const present = new Set(stats.buckets.flatMap((b) => Object.keys(b.counts)));
  const known = ACTION_ORDER.filter((a) => present.has(a));
  return [...known, ...[...present].filter((a) => !ACTION_ORDER.includes(a)).sort()];
}

function barsOf(stats: ActivityStatsResponse, actions: string[]): ChartBar[] {
  return stats.buckets.map((bucket) => {
    const total = Object.values(bucket.counts).reduce((a, b) => a + b, 0);
    const parts = actions.filter((a) => bucket.counts[a]).map((a) => `${a} ${formatCount(bucket.counts[a]!)}`);
    const span = spanText(bucket.start, stats.bucketMinutes);
    const end = new Date(Date.parse(bucket.start) + stats.bucketMinutes * 60_000).toISOString();
    return {
      bucket,
      total,
      label: `${span}: ${total === 1 ? '1 record' : `${formatCount(total)} records`}${parts.length ? ` (${parts.join(', ')})` : ''}`,
      href: searchLink({ from: bucket.start, to: end }),
    };
  });
}

function ticksOf(stats: ActivityStatsResponse): Array<[number, string]> {
  const ticks: Array<[number, string]> = [];
  stats.buckets.forEach((bucket, i) => {
    const date = new Date(bucket.start);
    if (date.getMinutes() !== 0) return;
    if (stats.range === '24h' && date.getHours() % 3 === 0) ticks.push([i, timeOf(bucket.start)]);
    if (stats.range === '7d' && date.getHours() === 0) ticks.push([i, dayOf(bucket.start)]);
  });
  return ticks;
}

function TopList(props: {
  id: string;
  title: string;
  entries: ActivityTopEntry[];
  link: (value: string) => string;
  empty: string;
}) {
  const max = Math.max(1, ...props.entries.map((e) => e.count));
  return (
    <section class="top-list" aria-labelledby={props.id}>
      <h3 id={props.id}>{props.title}</h3>
      {props.entries.length === 0 ? (
        <p class="muted">{props.empty}</p>
      ) : (
        <ol>
          {props.entries.map((entry) => (
            <li key={entry.value}>
              <a href={props.link(entry.value)} class="top-value" title={entry.value}>
                {entry.value}
              </a>
              <span class="top-count">{formatCount(entry.count)}</span>
              <span class="top-bar" aria-hidden="true" style={{ width: `${(entry.count / max) * 100}%` }} />
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

export function ActivityGlance() {
  const [range, setRange] = useState<ActivityStatsRange>('24h');
  const stats = useResource(() => api.activityStats(range), [range], 30_000);
  const s = stats.data?.range === range ? stats.data : null;
  const actions = s ? actionsOf(s) : [];
  const bars = s ? barsOf(s, actions) : [];
  const total = bars.reduce((n, b) => n + b.total, 0);
  const rangeLink = (extra: { who?: string; folder?: string; process?: string }): string =>
    searchLink({ from: s!.from, to: s!.to, ...extra });
  const rangeName = RANGES.find(([r]) => r === range)![1].toLowerCase();
  return (
    <section class="panel glance" aria-labelledby="glance-title">
      <div class="section-head">
        <h2 id="glance-title" class="grow">
          Activity at a glance
        </h2>
        <div class="range-switch" role="group" aria-label="Time range">
          {RANGES.map(([value, label]) => (
            <button
              key={value}
              type="button"
              class="secondary small"
              aria-pressed={range === value}
              onClick={() => setRange(value)}
            >
              {label}
            </button>
          ))}
        </div>
      </div>
      <ErrorMessage error={stats.error} prefix="The activity charts could not be read" />
      {!s && !stats.error ? <p aria-live="polite">Loading…</p> : null}
      {s ? (
        <>
          <p class="muted" role="status">
            {formatCount(total)} records in the {rangeName}, by {s.bucketMinutes === 15 ? '15 minutes' : 'hour'}. Select
            a bar or a name to search those records.
          </p>
          <ActivityChart
            bars={bars}
            actions={actions}
            ticks={ticksOf(s)}
            title={`Records in the ${rangeName} by action`}
            onOpen={navigate}
          />
          {actions.length > 0 ? (
            <ul class="legend" aria-label="Actions">
              {actions.map((action) => (
                <li key={action}>
                  <span class="swatch" aria-hidden="true" style={{ background: actionColor(action, actions) }} />
                  {action}
                </li>
              ))}
            </ul>
          ) : null}
          <table class="visually-hidden">
            <caption>
              Records in the {rangeName} per {s.bucketMinutes === 15 ? '15 minutes' : 'hour'} and action; periods
              without records are left out
            </caption>
            <thead>
              <tr>
                <th scope="col">Time</th>
                {actions.map((a) => (
                  <th key={a} scope="col">
                    {a}
                  </th>
                ))}
                <th scope="col">Total</th>
              </tr>
            </thead>
            <tbody>
              {bars
                .filter((bar) => bar.total > 0)
                .map((bar) => (
                  <tr key={bar.bucket.start}>
                    <th scope="row">
                      <a href={bar.href} tabIndex={-1}>
                        {spanText(bar.bucket.start, s.bucketMinutes)}
                      </a>
                    </th>
                    {actions.map((a) => (
                      <td key={a}>{bar.bucket.counts[a] ?? 0}</td>
                    ))}
                    <td>{bar.total}</td>
                  </tr>
                ))}
            </tbody>
          </table>
          <div class="top-lists">
            <TopList
              id="top-actors"
              title="Top actors"
              entries={s.topActors}
              link={(who) => rangeLink({ who })}
              empty="No records."
            />
            <TopList
              id="top-folders"
              title="Top folders"
              entries={s.topFolders}
              link={(folder) => rangeLink({ folder })}
              empty="No file records."
            />
            <TopList
              id="top-processes"
              title="Top processes"
              entries={s.topProcesses}
              link={(process) => rangeLink({ process })}
              empty="No records name their process."
            />
          </div>
        </>
      ) : null}
    </section>
  );
}
