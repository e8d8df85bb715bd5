/**
 * Serves the console web app (renderer/dist, built by Vite) on the console listener. Paths
 * that are not files fall back to index.html so the app's own routes survive a reload.
 * @koa/send resolves paths inside `root` and refuses traversal.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type Koa from 'koa';
import { send } from '@koa/send';
import { isApiPath } from './console-guard.js';

/** Content-Security-Policy of the console: only its own scripts and styles, never framed. */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join('; ');

/** renderer/dist of this installation, found by walking up to the package root. */
export function rendererDistFolder(start = path.dirname(fileURLToPath(import.meta.url))): string | null {
  let dir = start;
  for (let i = 0; i < 6; i++) {
    const candidate = path.join(dir, 'renderer', 'dist', 'index.html');
    if (fs.existsSync(candidate)) return path.dirname(candidate);
    dir = path.dirname(dir);
  }
  return null;
}

export function staticFiles(root: string | null): Koa.Middleware {
  return async (ctx, next) => {
    await next();
    if (ctx.body !== undefined || ctx.status !== 404) return;
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return;
    if (isApiPath(ctx.path)) return;
    ctx.set('Content-Security-Policy', CONSOLE_CSP);
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Referrer-Policy', 'no-referrer');
    if (root === null) {
      ctx.status = 503;
      ctx.type = 'text/plain';
      ctx.body = 'The console web app is not built. Run "npm run build" and reload.';
      return;
    }
    const isAsset = ctx.path.startsWith('/assets/');
    const served = await send(ctx, ctx.path, {
      root,
      index: 'index.html',
      maxAge: isAsset ? 365 * 24 * 3600 * 1000 : 0,
      immutable: isAsset, // Vite puts a content hash in every asset name
    }).catch(() => undefined);
    if (!served && !isAsset) {
      await send(ctx, 'index.html', { root });
    }
  };
}
