/**
 * Records over time as stacked bars, one colour per Action (SVG, scaled to its box). Keyboard:
 * the chart is one tab stop; the arrow keys, Home and End move between bars, Enter or Space
 * opens the bar's search. Each bar's label says its time and counts, for screen readers and as
 * the mouse tooltip; the page also renders the counts as a table (activity-glance.tsx).
 */
import { useRef, useState } from 'preact/hooks';
import type { ActivityStatsBucket } from '../../../shared/console-api.js';

export const ACTION_COLORS: Readonly<Record<string, string>> = {
  Added: '#1a7f37',
  Modified: '#1f5fbf',
  Removed: '#b42318',
  Renamed: '#8250df',
  Moved: '#bc4c00',
};
const OTHER_COLORS = ['#57606a', '#0a7d8c', '#9a6700', '#bf3989'];

/** A colour for every action in `actions`: the known ones fixed, the rest in turn. */
export function actionColor(action: string, actions: readonly string[]): string {
  const known = ACTION_COLORS[action];
  if (known) return known;
  const others = actions.filter((a) => !ACTION_COLORS[a]);
  return OTHER_COLORS[others.indexOf(action) % OTHER_COLORS.length] ?? OTHER_COLORS[0]!;
}

const WIDTH = 800;
const HEIGHT = 220;
const LEFT = 52;
const RIGHT = 8;
const TOP = 10;
const BOTTOM = 26;

export interface ChartBar {
  bucket: ActivityStatsBucket;
  total: number;
  /** What the bar says in words: its time span and counts. */
  label: string;
  /** Where a click goes. */
  href: string;
}

/** A round axis maximum at or above `max`. */
function niceMax(max: number): number {
  if (max <= 4) return 4;
  const power = 10 ** Math.floor(Math.log10(max));
  for (const step of [1, 2, 2.5, 5, 10]) if (step * power >= max) return step * power;
  return 10 * power;
}

export function ActivityChart(props: {
  bars: ChartBar[];
  actions: string[];
  /** Axis labels: the index of a bar and its text. */
  ticks: Array<[number, string]>;
  title: string;
  onOpen: (href: string) => void;
}) {
  const { bars, actions } = props;
  const lastWithRecords = bars.reduce((last, bar, i) => (bar.total > 0 ? i : last), bars.length - 1);
  const [focused, setFocused] = useState<number | null>(null);
  const current = Math.min(focused ?? lastWithRecords, bars.length - 1);
  const hits = useRef<Array<SVGRectElement | null>>([]);
  const max = niceMax(Math.max(0, ...bars.map((b) => b.total)));
  const plotWidth = WIDTH - LEFT - RIGHT;
  const plotHeight = HEIGHT - TOP - BOTTOM;
  const step = plotWidth / Math.max(1, bars.length);
  const gap = step > 6 ? 1 : 0;
  const y = (value: number): number => TOP + plotHeight - (value / max) * plotHeight;

  const move = (to: number): void => {
    const next = Math.max(0, Math.min(bars.length - 1, to));
    setFocused(next);
    hits.current[next]?.focus();
  };
  const onKey = (event: KeyboardEvent, index: number): void => {
    const keys: Record<string, () => void> = {
      ArrowRight: () => move(index + 1),
      ArrowLeft: () => move(index - 1),
      Home: () => move(0),
      End: () => move(bars.length - 1),
      PageUp: () => move(index - 4),
      PageDown: () => move(index + 4),
      Enter: () => props.onOpen(bars[index]!.href),
      ' ': () => props.onOpen(bars[index]!.href),
    };
    const action = keys[event.key];
    if (!action) return;
    event.preventDefault();
    action();
  };

  return (
    <svg
      class="activity-chart"
      viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
      role="group"
      aria-label={`${props.title}. Arrow keys move between bars; Enter opens the search of a bar.`}
    >
      {[0, 0.5, 1].map((f) => (
        <g key={f} aria-hidden="true">
          <line class="grid" x1={LEFT} x2={WIDTH - RIGHT} y1={y(max * f)} y2={y(max * f)} />
          <text class="axis" x={LEFT - 6} y={y(max * f) + 4} text-anchor="end">
            {(max * f).toLocaleString()}
          </text>
        </g>
      ))}
      {props.ticks.map(([index, text]) => (
        <text key={index} class="axis" aria-hidden="true" x={LEFT + index * step} y={HEIGHT - 8} text-anchor="middle">
          {text}
        </text>
      ))}
      {bars.map((bar, i) => {
        let base = 0;
        const x = LEFT + i * step;
        return (
          <g key={bar.bucket.start}>
            {actions.map((action) => {
              const count = bar.bucket.counts[action] ?? 0;
              if (count === 0) return null;
              const top = y(base + count);
              const height = y(base) - top;
              base += count;
              return (
                <rect
                  key={action}
                  aria-hidden="true"
                  x={x + gap / 2}
                  y={top}
                  width={Math.max(1, step - gap)}
                  height={height}
                  fill={actionColor(action, actions)}
                />
              );
            })}
            <rect
              ref={(el) => {
                hits.current[i] = el;
              }}
              class="bar-hit"
              data-start={bar.bucket.start}
              role="link"
              tabindex={i === current ? 0 : -1}
              aria-label={bar.label}
              x={x}
              y={TOP}
              width={step}
              height={plotHeight}
              fill="transparent"
              onClick={() => props.onOpen(bar.href)}
              onKeyDown={(e) => onKey(e, i)}
              onFocus={() => setFocused(i)}
            >
              <title>{bar.label}</title>
            </rect>
          </g>
        );
      })}
    </svg>
  );
}
