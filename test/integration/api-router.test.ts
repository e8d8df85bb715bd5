/** The agent API's router (agent/http/api-router.ts) on a real Koa app: matching, parameters, HEAD, 405/OPTIONS. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiRouter, pathParam } from '../../agent/http/api-router.js';

let server: http.Server;
let base = '';
const seen: string[] = [];

beforeAll(async () => {
  const router = new ApiRouter()
    .get('/api/v1/hosts', (ctx) => {
      ctx.body = { list: true };
    })
    .get(
      '/api/v1/hosts/:hostId',
      async (_ctx, next) => {
        seen.push('guard');
        await next();
      },
      (ctx) => {
        ctx.body = { id: pathParam(ctx, 'hostId') };
      },
    )
    .patch('/api/v1/hosts/:hostId', (ctx) => {
      ctx.body = { patched: pathParam(ctx, 'hostId') };
    })
    .delete('/api/v1/hosts/:hostId', (ctx) => {
      ctx.status = 204;
    });
  const app = new Koa();
  app.use(router.middleware());
  app.use((ctx) => {
    ctx.status = 404;
    ctx.body = { fellThrough: ctx.path };
  });
  server = http.createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('ApiRouter', () => {
  it('runs the route middleware in order and decodes path parameters', async () => {
    const response = await fetch(`${base}/api/v1/hosts/Windows-wrkst%2001`);
    expect(await response.json()).toEqual({ id: 'Windows-wrkst 01' });
    expect(seen).toContain('guard');
  });

  it('answers HEAD for GET routes, without a body', async () => {
    const response = await fetch(`${base}/api/v1/hosts`, { method: 'HEAD' });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('');
  });

  it('answers a known path with another method 405 and Allow, OPTIONS 204 and Allow', async () => {
    const post = await fetch(`${base}/api/v1/hosts/x`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD, PATCH, DELETE');
    const options = await fetch(`${base}/api/v1/hosts`, { method: 'OPTIONS' });
    expect(options.status).toBe(204);
    expect(options.headers.get('allow')).toBe('GET, HEAD');
  });

  it('lets unknown paths, trailing slashes and other cases fall through', async () => {
    for (const path of ['/api/v1/nothing', '/api/v1/hosts/', '/API/V1/HOSTS', '/api/v1/hosts/a/b']) {
      const response = await fetch(`${base}${path}`);
      expect({ path, status: response.status }).toEqual({ path, status: 404 });
    }
  });
});
