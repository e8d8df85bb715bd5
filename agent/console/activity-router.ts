/**
 * Console API for activity (shared/console-api.ts `ConsoleActivityPaths`): search the audit
 * store with the audit API's own filters (the JSON FilterList of shared/audit-filter-json.ts),
 * newest first and paged; and the live feed of committed records over Server-Sent Events.
 * Records are attacker-controlled text (file names from the watched folders): they leave as
 * JSON and the web app renders them as text only (docs/console.md).
 */
import { z } from 'zod';
import { ConsoleActivityPaths, MAX_ACTIVITY_PAGE, type ActivitySearchResponse } from '../../shared/console-api.js';
import { FilterError, type FilterCondition } from '../../shared/audit-filters.js';
import { isJsonObject, parseFilterListJson } from '../../shared/audit-filter-json.js';
import { ApiError } from '../http/api-error.js';
import type { AuditService } from '../audit/audit-service.js';
import { readJsonObject } from '../http/json-body.js';
import { parseInput } from '../http/parse-input.js';
import type { LiveFeed } from '../pipeline/live-feed.js';
import type { AuditReader } from '../store/audit-reader.js';
import { rawToRecord } from '../store/raw-record.js';
import type { ConsoleRoutes } from './console-app.js';
import { openEventStream } from './sse.js';

export interface ActivityRouterDeps {
  service: AuditService;
  reader: AuditReader;
  feed: LiveFeed;
  shutdown: AbortSignal;
}

/** `FilterList` location prefix of the audit API, dropped from the field names the console shows. */
const FILTER_ROOT = '/ActivityRecordSearch/FilterList';

function conditionsOf(body: Record<string, unknown>): FilterCondition[] {
  const list = body['filterList'];
  if (list === undefined || (isJsonObject(list) && Object.keys(list).length === 0)) return [];
  try {
    return parseFilterListJson(list, FILTER_ROOT);
  } catch (error) {
    if (error instanceof FilterError) {
      const field = `filterList${error.location.slice(FILTER_ROOT.length).replace(/\//g, '.')}`;
      throw new ApiError(400, 'invalid_request', error.message, { field });
    }
    throw error;
  }
}

const countWords = `count must be from 1 to ${MAX_ACTIVITY_PAGE}`;
const pageWords = 'page must be the "next" of the previous answer';
/** `filterList` is checked by the audit API's own parser (conditionsOf), with its own words. */
const SearchBody = z.object({
  filterList: z.unknown().optional(),
  page: z
    .union([z.null(), z.object({ before: z.number().int().min(1), reference: z.number().int() })], { error: pageWords })
    .optional(),
  count: z
    .number({ error: countWords })
    .int({ error: countWords })
    .min(1, { error: countWords })
    .max(MAX_ACTIVITY_PAGE, { error: countWords })
    .default(100),
});

export function buildActivityRouter(deps: ActivityRouterDeps): ConsoleRoutes {
  return (router) => {
    router.post(ConsoleActivityPaths.search, async (ctx) => {
      const body = await readJsonObject(ctx);
      const conditions = conditionsOf(body);
      const { page: cursor, count } = parseInput(SearchBody, body);
      const reference = cursor?.reference ?? Date.now();
      const socket = ctx.socket;
      const page = await deps.service.pageBefore(
        conditions,
        reference,
        cursor?.before ?? Number.MAX_SAFE_INTEGER,
        count,
        () => socket.destroyed,
      );
      // fetchRaw wants ascending seqs; the page is newest first.
      const rows = deps.reader.fetchRaw([...page.seqs].reverse());
      const answer: ActivitySearchResponse = {
        records: rows.reverse().map(rawToRecord),
        next: page.next === null ? null : { before: page.next, reference },
      };
      ctx.body = answer;
    });

    router.get(ConsoleActivityPaths.feed, (ctx) => {
      const stream = openEventStream(ctx, deps.shutdown);
      void (async () => {
        const chunks = deps.feed.stream({ signal: stream.signal, maxBuffered: 2000 });
        // The first next() subscribes at once: nothing committed after `ready` is missed.
        let next = chunks.next();
        try {
          await stream.send('ready', {});
          for (let result = await next; !result.done; result = await next) {
            const chunk = result.value;
            if (chunk.dropped > 0 && !(await stream.send('dropped', { count: chunk.dropped }))) break;
            if (!(await stream.send('records', chunk.records))) break;
            next = chunks.next();
          }
        } finally {
          stream.close();
          await chunks.return(undefined);
        }
      })();
    });
  };
}
