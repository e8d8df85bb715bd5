/**
 * The agent API's router. Routes are declared where they are registered, with the middleware
 * that guards them, the way @koa/router does it:
 *
 *   router.get('/api/v1/agents/:agentId', requirePermission('agent', 'read'), getAgent);
 *
 * Matching uses find-my-way (fastify's radix-tree router: one walk of the path, whatever the
 * number of routes) and each route's middleware is composed once, at registration. @koa/router
 * scans every route's regular expression and composes a new chain on every request; at the
 * request rates of docs/benchmarks.md that was a measurable share of the agent's time.
 *
 * - GET routes answer HEAD too (Koa sends no body for HEAD).
 * - A path that exists with other methods answers 405 with `Allow` (RFC 9110 §15.5.6), and
 *   OPTIONS answers 204 with `Allow`; a path that does not exist falls through to `next`.
 * - Path parameters are decoded by find-my-way; read them with `pathParam(ctx, name)`. An empty
 *   parameter does not match, and neither does a trailing slash: `/hosts/` is not `/hosts`.
 * - A route may carry its documentation as the argument after the path (`Doc`, an object); the
 *   agent API's routes do (agent/api/openapi/route-doc.ts), and its OpenAPI description is
 *   generated from `routes()`, so the table of routes and their description are one.
 */
import type Koa from 'koa';
import FindMyWay from 'find-my-way';
import compose from 'koa-compose';

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
type Method = (typeof METHODS)[number];

const PARAMS = Symbol('path parameters');

interface WithParams {
  [PARAMS]?: Readonly<Record<string, string | undefined>>;
}

/** A decoded path parameter of the matched route (`:agentId` → `pathParam(ctx, 'agentId')`). */
export function pathParam(ctx: Koa.Context, name: string): string {
  const value = (ctx as unknown as WithParams)[PARAMS]?.[name];
  if (value === undefined) throw new Error(`the route has no path parameter "${name}"`);
  return value;
}

function isMethod(method: string): method is Method {
  return (METHODS as readonly string[]).includes(method);
}

/** A registered route: the method (GET routes also answer HEAD), the find-my-way path, its documentation and chain. */
export interface RouteInfo<Doc = unknown> {
  method: Exclude<Method, 'HEAD'>;
  path: string;
  doc?: Doc | undefined;
  middleware: readonly Koa.Middleware[];
}

type RouteArgs<Doc> = [Doc, ...Koa.Middleware[]] | Koa.Middleware[];

export class ApiRouter<Doc extends object = never> {
  private readonly tree = FindMyWay({ caseSensitive: true, ignoreTrailingSlash: false, maxParamLength: 256 });
  private readonly registered: Array<RouteInfo<Doc>> = [];

  get(path: string, ...args: RouteArgs<Doc>): this {
    return this.add(['GET', 'HEAD'], path, args);
  }

  post(path: string, ...args: RouteArgs<Doc>): this {
    return this.add(['POST'], path, args);
  }

  put(path: string, ...args: RouteArgs<Doc>): this {
    return this.add(['PUT'], path, args);
  }

  patch(path: string, ...args: RouteArgs<Doc>): this {
    return this.add(['PATCH'], path, args);
  }

  delete(path: string, ...args: RouteArgs<Doc>): this {
    return this.add(['DELETE'], path, args);
  }

  private add(methods: Method[], path: string, args: RouteArgs<Doc>): this {
    const [first, ...rest] = args;
    const doc = typeof first === 'object' ? first : undefined;
    const middleware = (doc === undefined ? args : rest) as Koa.Middleware[];
    if (middleware.length === 0) throw new Error(`route ${methods[0]} ${path} has no handler`);
    this.registered.push({ method: methods[0] as RouteInfo['method'], path, doc, middleware });
    // The chain is kept as the route's store; find-my-way's own handler slot is unused.
    this.tree.on(methods, path, () => undefined, compose(middleware));
    return this;
  }

  /** Every route registered so far, in registration order (the OpenAPI test compares them). */
  routes(): ReadonlyArray<RouteInfo<Doc>> {
    return this.registered;
  }

  /** The methods registered for `path` (empty when the path is unknown). */
  allowedMethods(path: string): Method[] {
    return METHODS.filter((method) => {
      const found = this.tree.find(method, path);
      return found !== null && !Object.values(found.params).includes('');
    });
  }

  /** Whether any route matches `path`, whatever the method. */
  knows(path: string): boolean {
    return this.allowedMethods(path).length > 0;
  }

  middleware(): Koa.Middleware {
    return (ctx, next) => {
      const method = ctx.method;
      const found = isMethod(method) ? this.tree.find(method, ctx.path) : null;
      // find-my-way lets a parameter match an empty segment (`/hosts/`); no route wants that.
      if (found && !Object.values(found.params).includes('')) {
        (ctx as unknown as WithParams)[PARAMS] = found.params;
        return (found.store as Koa.Middleware)(ctx, next);
      }
      const allowed = this.allowedMethods(ctx.path);
      if (allowed.length === 0) return next();
      ctx.set('Allow', allowed.join(', '));
      // No body: the error middleware shapes 405 like every other error.
      ctx.status = method === 'OPTIONS' ? 204 : 405;
      return undefined;
    };
  }
}
