/**
 * One log file on screen with virtual scrolling: only the lines in view (and a block either side)
 * exist in the page, fetched from the agent in blocks of lines by number, so a file of any size
 * opens at once and scrolls smoothly. A filter shows only the lines containing a text (the agent
 * searches the whole file). Follow mode, for today's file, adds lines as the agent writes them
 * and keeps the view at the end while you are there.
 *
 * Browsers cap an element's height (Chrome near 33 million pixels), so past MAX_SCROLL_PX the
 * scroll bar maps proportionally onto line numbers instead of one pixel row per pixel.
 */
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { LogFileView, LogLine } from '../../../shared/console-api.js';
import { api, followUrl, subscribe } from '../api-client.js';
import { ErrorMessage } from '../components/error-message.js';
import { countOf, formatSize, formatTime } from '../format.js';
import { visibleText } from '../safe-text.js';

export const LINE_HEIGHT = 20; // px; styles.css .log-line has the same
const BLOCK = 200;
const MAX_BLOCKS = 80;
const MAX_SCROLL_PX = 4_000_000;

interface Props {
  file: LogFileView;
  onClose: () => void;
}

export function LogViewer({ file, onClose }: Props) {
  const scroller = useRef<HTMLDivElement>(null);
  const blocks = useRef(new Map<number, LogLine[]>());
  const pending = useRef(new Set<number>());
  const generation = useRef(0);
  const totalRef = useRef(0);
  const [total, setTotal] = useState<number | null>(null);
  const [, setVersion] = useState(0);
  const [scrollTop, setScrollTop] = useState(0);
  const [viewport, setViewport] = useState(400);
  const [filterInput, setFilterInput] = useState('');
  const [filter, setFilter] = useState('');
  const [follow, setFollow] = useState(false);
  const [followState, setFollowState] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [reloads, setReloads] = useState(0);
  const stickToEnd = useRef(false);

  const rerender = (): void => setVersion((v) => v + 1);

  const fetchBlock = useCallback(
    async (block: number) => {
      if (pending.current.has(block)) return;
      pending.current.add(block);
      const mine = generation.current;
      try {
        const page = await api.logLines(file.id, block * BLOCK, BLOCK, filter || null);
        if (mine !== generation.current) return;
        blocks.current.set(block, page.lines);
        if (blocks.current.size > MAX_BLOCKS) blocks.current.delete(blocks.current.keys().next().value!);
        // While following, new lines come as events; a file that got shorter is taken as it is.
        if (page.totalLines < totalRef.current || (page.totalLines !== totalRef.current && !follow)) {
          totalRef.current = page.totalLines;
          setTotal(page.totalLines);
        }
        setError(null);
        rerender();
      } catch (caught) {
        if (mine === generation.current) setError(caught);
      } finally {
        pending.current.delete(block);
      }
    },
    [file.id, filter, follow],
  );

  // A new file or filter: start over from the first block.
  useEffect(() => {
    generation.current++;
    blocks.current.clear();
    pending.current.clear();
    totalRef.current = 0;
    setTotal(null);
    setError(null);
    const mine = generation.current;
    api.logLines(file.id, 0, BLOCK, filter || null).then(
      (page) => {
        if (mine !== generation.current) return;
        blocks.current.set(0, page.lines);
        totalRef.current = page.totalLines;
        setTotal(page.totalLines);
        if (scroller.current) scroller.current.scrollTop = 0;
        setScrollTop(0);
      },
      (caught: unknown) => mine === generation.current && setError(caught),
    );
  }, [file.id, filter, reloads]);

  // The viewport's height follows the window.
  useLayoutEffect(() => {
    const element = scroller.current;
    if (!element) return undefined;
    const observer = new ResizeObserver(() => setViewport(element.clientHeight));
    observer.observe(element);
    setViewport(element.clientHeight);
    return () => observer.disconnect();
  }, []);

  // Follow mode: new lines arrive as events and are put in their blocks.
  useEffect(() => {
    if (!follow || total === null) return undefined;
    const mine = generation.current;
    const subscription = subscribe(
      () => followUrl(file.id, totalRef.current, filter || null),
      {
        lines: (data) => {
          if (mine !== generation.current) return;
          const page = data as { from: number; totalLines: number; lines: LogLine[] };
          page.lines.forEach((line, i) => {
            const position = page.from + i;
            const block = Math.floor(position / BLOCK);
            const list = blocks.current.get(block) ?? (position % BLOCK === 0 ? [] : null);
            if (list && list.length === position % BLOCK) {
              list.push(line);
              blocks.current.set(block, list);
            }
          });
          totalRef.current = Math.max(totalRef.current, page.from + page.lines.length);
          setTotal(totalRef.current);
        },
        // The file was cut back or replaced: read it again from the start.
        reset: () => setReloads((n) => n + 1),
        failure: (data) => setError(new Error((data as { message: string }).message)),
      },
      (state) =>
        setFollowState(
          state === 'open' ? 'Following new lines' : state === 'retrying' ? 'Reconnecting…' : 'Connecting…',
        ),
    );
    return () => subscription.close();
    // Reconnect when the file or filter changes, not on every new line.
  }, [follow, file.id, filter, total === null]);

  // Keep the end in view while following, if the reader was at the end.
  useLayoutEffect(() => {
    const element = scroller.current;
    if (element && follow && stickToEnd.current) element.scrollTop = element.scrollHeight;
  }, [total, follow]);

  const count = total ?? 0;
  const natural = count * LINE_HEIGHT;
  const scaled = natural > MAX_SCROLL_PX;
  const spacer = scaled ? MAX_SCROLL_PX : natural;
  const rows = Math.ceil(viewport / LINE_HEIGHT) + 1;
  const first = scaled
    ? Math.round((scrollTop / Math.max(1, spacer - viewport)) * Math.max(0, count - rows + 1))
    : Math.floor(scrollTop / LINE_HEIGHT);
  const windowTop = scaled ? scrollTop : first * LINE_HEIGHT;
  const last = Math.min(count, first + rows);

  // Fetch the blocks the view needs, and one either side.
  useEffect(() => {
    if (total === null) return;
    const from = Math.max(0, Math.floor(first / BLOCK) - 1);
    const to = Math.floor(Math.max(first, last - 1) / BLOCK) + 1;
    for (let b = from; b <= to; b++) {
      if (b * BLOCK >= count) break;
      const have = blocks.current.get(b);
      const expected = Math.min(BLOCK, count - b * BLOCK);
      // A block short of lines (a gap while following) is read again.
      if (!have || have.length < expected) void fetchBlock(b);
    }
  });

  const onScroll = (): void => {
    const element = scroller.current;
    if (!element) return;
    stickToEnd.current = element.scrollTop + element.clientHeight >= element.scrollHeight - LINE_HEIGHT;
    setScrollTop(element.scrollTop);
  };

  const lines: Array<{ position: number; line: LogLine | undefined }> = [];
  for (let position = first; position < last; position++) {
    lines.push({ position, line: blocks.current.get(Math.floor(position / BLOCK))?.[position % BLOCK] });
  }
  const digits = String(Math.max(1, count)).length + 1;

  return (
    <section class="log-viewer" aria-labelledby="viewer-title">
      <div class="viewer-head">
        <h2 id="viewer-title" class="mono">
          {file.id}
        </h2>
        <button type="button" class="secondary small" onClick={onClose}>
          Back to the list
        </button>
      </div>
      <p class="muted">
        {formatSize(file.size)}
        {file.activityFrom ? `, activity from ${formatTime(file.activityFrom)} to ${formatTime(file.activityTo)}` : ''}
        {file.isZip ? ', compressed (shown unpacked)' : ''}
      </p>
      <form
        class="viewer-tools"
        onSubmit={(event) => {
          event.preventDefault();
          setFilter(filterInput.trim());
        }}
      >
        <label for="line-filter">Show only lines containing</label>
        <input
          id="line-filter"
          type="search"
          value={filterInput}
          maxLength={200}
          onInput={(e) => setFilterInput((e.currentTarget as HTMLInputElement).value)}
        />
        <button type="submit" class="secondary small">
          Filter
        </button>
        {filter ? (
          <button
            type="button"
            class="secondary small"
            onClick={() => {
              setFilterInput('');
              setFilter('');
            }}
          >
            Show all lines
          </button>
        ) : null}
        {file.current ? (
          <span class="check inline">
            <input
              id="follow"
              type="checkbox"
              checked={follow}
              onChange={(e) => {
                const on = (e.currentTarget as HTMLInputElement).checked;
                setFollow(on);
                if (on && scroller.current) {
                  stickToEnd.current = true;
                  scroller.current.scrollTop = scroller.current.scrollHeight;
                }
              }}
            />
            <label for="follow">Follow new lines</label>
          </span>
        ) : null}
        <a class="button secondary small" href={api.logDownloadUrl(file.id)} download={file.id}>
          Download
        </a>
      </form>
      <p role="status" class="muted viewer-status">
        {total === null
          ? 'Opening…'
          : filter
            ? `${countOf(count, 'line contains', 'lines contain')} “${filter}”`
            : countOf(count, 'line', 'lines')}
        {follow && followState ? ` · ${followState}` : ''}
      </p>
      <ErrorMessage error={error} />
      <div
        ref={scroller}
        class="log-scroller"
        tabIndex={0}
        role="region"
        aria-label={`Lines of ${file.id}`}
        onScroll={onScroll}
      >
        <div class="log-spacer" style={{ height: `${spacer}px` }}>
          <div class="log-window" style={{ transform: `translateY(${windowTop}px)` }}>
            {lines.map(({ position, line }) => (
              <div class="log-line" key={position}>
                <span class="log-number" style={{ width: `${digits}ch` }} aria-hidden="true">
                  {line ? line.n + 1 : ''}
                </span>
                <span class="log-text">
                  {line ? visibleText(line.text) + (line.truncated ? ' …(line cut)' : '') : '…'}
                </span>
              </div>
            ))}
          </div>
        </div>
        {total === 0 ? <p class="log-empty">{filter ? 'No line contains this text.' : 'The file is empty.'}</p> : null}
      </div>
    </section>
  );
}
