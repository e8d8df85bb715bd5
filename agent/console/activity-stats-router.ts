/**
 * Console API for activity at a glance (shared/console-api.ts `ConsoleActivityStatsPaths`,
 * docs/console.md): the chart and top-10 lists of the last 24 hours or 7 days, read from the
 * activity rollup (agent/store/activity-rollup.ts).
 */
import { z } from 'zod';
import {
  ACTIVITY_STATS_RANGES,
  ConsoleActivityStatsPaths,
  type ActivityStatsResponse,
} from '../../shared/console-api.js';
import { parseInput } from '../http/parse-input.js';
import type { ActivityRollup } from '../store/activity-rollup.js';
import type { ConsoleRoutes } from './console-app.js';

const StatsQuery = z.object({
  range: z.enum(ACTIVITY_STATS_RANGES, { error: 'range must be "24h" or "7d"' }).default('24h'),
});

export function buildActivityStatsRouter(rollup: ActivityRollup): ConsoleRoutes {
  return (router) => {
    router.get(ConsoleActivityStatsPaths.stats, async (ctx) => {
      const { range } = parseInput(StatsQuery, { range: ctx.query['range'] });
      const stats = await rollup.stats(range);
      const answer: ActivityStatsResponse = {
        range,
        from: new Date(stats.from).toISOString(),
        to: new Date(stats.to).toISOString(),
        bucketMinutes: stats.bucketMs / 60_000,
        buckets: stats.buckets.map((b) => ({ start: new Date(b.start).toISOString(), counts: b.counts })),
        topActors: stats.top.who,
        topFolders: stats.top.folder,
        topProcesses: stats.top.process,
      };
      ctx.body = answer;
    });
  };
}
