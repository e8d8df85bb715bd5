/**
 * The audit integration API application (port 9699; docs/audit-api.md).
 *
 * Routes under `/{vendor}/api/v1/`: `activity_records/enum` (GET first page, POST a mark),
 * `activity_records/search` (ActivityRecordSearch, optionally with a mark) and
 * `activity_records/` (write). Each request goes through, in order: path (404), method (405),
 * Basic authentication (401/429) and role (403), query string, body (413, 415), then the
 * service. Errors leave as the ErrorList of docs/audit-api.md (XML or JSON per `format`) or as an empty body.
 */
import Koa from 'koa';
import type { Logger } from '../log/logger.js';
import type { AuditUserService } from '../users/audit-user-service.js';
import type { AuditRole } from '../config/settings-schema.js';
import type { TurnQueue } from '../util/turn-queue.js';
import { AuditDatabaseError, PageCancelled, type AuditRecords } from '../store/audit-records.js';
import { AuditError, EmptyResponse, ErrorCodes, serverError } from './audit-errors.js';
import { AUDIT_LIMITS, type AuditLimits } from './audit-limits.js';
import { BodyTooLargeError, readBody } from '../http/read-body.js';
import type { AuditService } from './audit-service.js';
import { authenticate, requireRole } from './basic-auth.js';
import type { BodyParsePool } from './body-parse-pool.js';
import { LoginLimiter } from './login-limiter.js';
import { formatOfContentType, parseQuery, requestedFormat } from './query-params.js';
import {
  isSmallPage,
  pageSlices,
  prepareSlices,
  recordPageBuffer,
  recordPageStream,
  type WireFormat,
} from './record-stream.js';
import { ReadAhead } from './read-ahead.js';
import { jsonBody, xmlBody } from './request-body.js';
import { errorListJson, errorListXml } from './response-writers.js';
import { markFromJson, markFromXml, searchFromJson, searchFromXml } from './search-request.js';
import { vendorProfile } from './vendor-profile.js';

export interface AuditAppDeps {
  log: Logger;
  /** Path segment after the host (docs/audit-api.md), read on every request so a change applies at once. */
  vendor: () => string;
  users: AuditUserService;
  service: AuditService;
  /** The records served (store/audit-records.ts): the service's, for fetching its pages. */
  records: AuditRecords;
  parsePool: BodyParsePool;
  /** The scheduler shared with the reader's searches and the page streams (turn-queue.ts). */
  turns: TurnQueue;
  limits?: AuditLimits;
  limiter?: LoginLimiter;
}

type Endpoint = 'enum' | 'search' | 'write';

// A Map, not an object: a path such as `constructor` or `__proto__` must find nothing (a 404),
// not a property every object inherits.
const ENDPOINTS: ReadonlyMap<string, Endpoint> = new Map([
  ['activity_records/enum', 'enum'],
  ['activity_records/search', 'search'],
  ['activity_records/', 'write'],
  ['activity_records', 'write'],
]);
const METHODS: Record<Endpoint, readonly string[]> = {
  enum: ['GET', 'POST'],
  search: ['GET', 'POST'],
  write: ['POST'],
};
const ROLES: Record<Endpoint, AuditRole> = { enum: 'reader', search: 'reader', write: 'contributor' };

function endpointOf(path: string, vendor: string): Endpoint | null {
  const prefix = `/${vendor}/api/v1/`;
  return path.startsWith(prefix) ? (ENDPOINTS.get(path.slice(prefix.length)) ?? null) : null;
}

/**
 * 415 when the declared type names the other format than an explicit `format`, or a charset
 * other than UTF-8. Without `format` the declared type chose the format, so it always agrees.
 */
/**
 * The body, within the audit API's limit: too large is 413 with an empty body and the
 * connection closed (docs/audit-api.md).
 */
async function readAuditBody(ctx: Koa.Context, limit: number): Promise<Buffer> {
  try {
    return await readBody(ctx.req, limit);
  } catch (error) {
    if (error instanceof BodyTooLargeError) {
      throw new EmptyResponse(413, { Connection: 'close' }, 'request body too large');
    }
    throw error;
  }
}

function checkContentType(header: string | undefined, format: WireFormat): void {
  if (!header) return;
  const charset = header
    .toLowerCase()
    .split(';')
    .slice(1)
    .map((part) => part.trim())
    .find((p) => p.startsWith('charset='))
    ?.slice(8)
    .replace(/"/g, '');
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
    throw new EmptyResponse(415, {}, `charset ${charset} is not supported`);
  }
  const declared = formatOfContentType(header);
  if (declared !== null && declared !== format) {
    throw new EmptyResponse(415, {}, `Content-Type ${header} does not match the format`);
  }
}

export function buildAuditApp(deps: AuditAppDeps): Koa {
  const limits = deps.limits ?? AUDIT_LIMITS;
  const limiter = deps.limiter ?? new LoginLimiter();
  const readAhead = new ReadAhead();
  const app = new Koa({ proxy: false });
  app.silent = true;

  // 1. Error shaping: every failure leaves as an ErrorList or an empty body, never a stack.
  app.use(async (ctx, next) => {
    const profile = vendorProfile(deps.vendor());
    const format = requestedFormat(ctx.querystring, ctx.get('content-type') || undefined);
    const writeErrors = (error: AuditError): void => {
      ctx.status = error.status;
      ctx.set('Cache-Control', 'no-store');
      if (format === 'json') {
        ctx.type = 'application/json; charset=utf-8';
        ctx.body = errorListJson([error.entry]);
      } else {
        ctx.type = 'application/xml; charset=utf-8';
        ctx.body = errorListXml(profile, [error.entry]);
      }
    };
    try {
      ctx.set('X-Content-Type-Options', 'nosniff');
      await next();
    } catch (error) {
      if (error instanceof EmptyResponse) {
        ctx.status = error.status;
        ctx.set(error.headers);
        ctx.body = '';
      } else if (error instanceof AuditError) {
        writeErrors(error);
      } else if (error instanceof AuditDatabaseError) {
        deps.log.warn('audit database unreachable', { path: ctx.path, error: error.message });
        writeErrors(
          serverError(ErrorCodes.databaseUnreachable, `The audit database cannot be reached: ${error.message}`),
        );
      } else if (error instanceof PageCancelled) {
        ctx.status = 500;
        ctx.body = '';
      } else {
        deps.log.error('audit request failed', {
          method: ctx.method,
          path: ctx.path,
          error: (error as Error)?.stack ?? String(error),
        });
        writeErrors(serverError(ErrorCodes.internal, 'Internal error; the agent log has the details'));
      }
    }
    if (ctx.status === 404 && !ctx.body) ctx.body = ''; // docs/audit-api.md: 404 with an empty body
  });

  // 2. Routing, authentication, the endpoints.
  app.use(async (ctx) => {
    const profile = vendorProfile(deps.vendor());
    const endpoint = endpointOf(ctx.path, profile.vendor);
    if (endpoint === null) throw new EmptyResponse(404);
    if (!METHODS[endpoint].includes(ctx.method)) {
      throw new EmptyResponse(405, { Allow: METHODS[endpoint].join(', ') });
    }
    const user = await authenticate(
      deps.users,
      limiter,
      ctx.socket.remoteAddress ?? '',
      ctx.get('authorization') || undefined,
    );
    requireRole(user, ROLES[endpoint]);
    const parsed = parseQuery(ctx.querystring, endpoint !== 'write', limits);
    if (parsed.ignored.length > 0) {
      deps.log.debug('audit request: query parameters this API does not define were ignored', {
        path: ctx.path,
        parameters: JSON.stringify(parsed.ignored),
      });
    }
    const contentType = ctx.get('content-type') || undefined;
    const query = { count: parsed.count, format: requestedFormat(ctx.querystring, contentType) };
    const hasBody = ctx.method === 'POST' || endpoint === 'search';
    if (hasBody) checkContentType(contentType, query.format);

    if (endpoint === 'write') {
      const bytes = await readAuditBody(ctx, limits.writeBodyBytes);
      const records = await deps.parsePool.parse(bytes, query.format, profile.vendor, user.name);
      await deps.service.write(records);
      ctx.status = 200;
      ctx.type = 'text/plain';
      ctx.body = '';
      return;
    }

    let position;
    let incomingMark: string | null = null;
    if (endpoint === 'enum' && ctx.method === 'GET') {
      position = deps.service.start([]);
    } else if (endpoint === 'enum') {
      const bytes = await readAuditBody(ctx, limits.readBodyBytes);
      await deps.turns.turn(); // see below
      incomingMark = query.format === 'json' ? markFromJson(jsonBody(bytes)) : markFromXml(xmlBody(bytes), profile);
      position = await deps.service.resume(incomingMark, '/ContinuationMark');
    } else {
      const bytes = await readAuditBody(ctx, limits.readBodyBytes);
      // Parsing and compiling take turns with the searches' steps: 200 requests whose bodies
      // arrived together were all parsed in one turn of the loop, holding it 100+ ms (L04).
      await deps.turns.turn();
      const request =
        bytes.length === 0
          ? { conditions: null, mark: null }
          : query.format === 'json'
            ? searchFromJson(jsonBody(bytes))
            : searchFromXml(xmlBody(bytes), profile);
      if (request.mark !== null) {
        position = await deps.service.resume(request.mark, '/ActivityRecordSearch/ContinuationMark');
        if (request.conditions !== null) {
          deps.service.checkSameSearch(position, request.conditions, '/ActivityRecordSearch/ContinuationMark');
        }
      } else if (request.conditions !== null) {
        position = deps.service.start(request.conditions);
      } else {
        throw new AuditError(
          400,
          'InputError',
          ErrorCodes.invalidArgument,
          'a search needs a FilterList (or a ContinuationMark)',
          '/ActivityRecordSearch/FilterList',
        );
      }
    }
    // The client went away when its socket did (a request stream is destroyed once read, so not that).
    const socket = ctx.socket;
    const prepared = incomingMark === null ? null : readAhead.take(ReadAhead.key(incomingMark, query.count));
    const page = prepared ?? (await deps.service.page(position, query.count, () => socket.destroyed));
    ctx.status = 200;
    ctx.set('Cache-Control', 'no-store');
    ctx.type = query.format === 'json' ? 'application/json; charset=utf-8' : 'application/xml; charset=utf-8';
    const recordPage = {
      records: deps.records,
      turns: deps.turns,
      seqs: page.seqs,
      format: query.format,
      profile,
      mark: page.mark,
      slices: prepared?.pageSlices ?? (await pageSlices(deps.records, page.seqs, limits.sliceBytes)),
      ...(prepared ? { prepared: prepared.slices } : {}),
    };
    // Large pages are streamed a slice at a time; small ones leave in one write.
    ctx.body = isSmallPage(recordPage) ? await recordPageBuffer(recordPage) : recordPageStream(recordPage);

    // A full page of an export in JSON: prepare the next one while the client reads this one.
    if (query.format === 'json' && position.conditions.length === 0 && page.seqs.length === query.count) {
      const key = ReadAhead.key(page.mark, query.count);
      setImmediate(() => {
        deps.service
          .page(page.next, query.count, () => false)
          .then(async (ahead) => {
            if (ahead.seqs.length !== query.count) return;
            const slices = await pageSlices(deps.records, ahead.seqs, limits.sliceBytes);
            readAhead.put(key, { ...ahead, pageSlices: slices, slices: prepareSlices(deps.records, slices) });
          })
          .catch(() => undefined); // the request for that page will report any failure itself
      });
    }
  });
  return app;
}
