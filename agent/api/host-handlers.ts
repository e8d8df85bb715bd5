/**
 * Handlers for hosts, shared by `/api/v1/hosts/...` and `/api/v1/agents/{id}/hosts/...`: they
 * parse and check the input, call HostService, and shape the Host resource.
 */
import type Koa from 'koa';
import type { View } from '../../shared/permission-engine.js';
import { applyMergePatch } from '../../shared/merge-patch.js';
import type { HostSettings } from '../config/monitoring-schema.js';
import { hostCreateSchema, hostWriteSchema, HOST_READ_ONLY, type HostView } from './schemas/host-schemas.js';
import { outputWriteSchema } from './schemas/output-schemas.js';
import { hostView } from './views/host-view.js';
import { parseInput, readJsonBody, readMergePatch, rejectReadOnly, viaService } from './request-input.js';
import { created, noContent, resolve, visible, type Resolved } from './resource-access.js';
import { actorOf, viewDeps, type ResourceRouteDeps } from './resource-deps.js';
import { apiAuth } from './bearer-auth.js';
import { checkSyslogDestination } from './syslog-destination.js';

export function renderHost(ctx: Koa.Context, deps: ResourceRouteDeps, host: HostSettings, view: View): HostView {
  return hostView(host, deps.outputs.ofHost(host.id), viewDeps(ctx, deps), view);
}

/** Every host the client may see, in its view (all hosts are the local agent's). */
export function listHosts(ctx: Koa.Context, deps: ResourceRouteDeps): HostView[] {
  return visible(ctx, 'host', deps.hosts.list()).map(({ item, view }) => renderHost(ctx, deps, item, view));
}

export function resolveHost(
  ctx: Koa.Context,
  deps: ResourceRouteDeps,
  hostId: string,
  action: 'read' | 'write' = 'read',
): Resolved<HostSettings> {
  return resolve(ctx, 'host', action, deps.hosts.find(hostId), 'there is no such host');
}

/** POST: a host and its outputs; without `outputs`, one TSV LogFile output. */
export async function createHost(ctx: Koa.Context, deps: ResourceRouteDeps): Promise<void> {
  const body = await readJsonBody(ctx);
  rejectReadOnly(
    body,
    HOST_READ_ONLY.filter((key) => key !== 'outputs'),
  );
  const write = parseInput(hostCreateSchema, body);
  const outputs = write.outputs ?? [parseInput(outputWriteSchema, { type: 'LogFile' })];
  for (const output of outputs) checkSyslogDestination(ctx, null, output);
  const { outputs: _outputs, ...fields } = write;
  const result = await viaService(() => deps.hosts.create(fields, outputs, actorOf(ctx)));
  created(ctx, renderHost(ctx, deps, result.host, apiAuth(ctx).access.view('host', 'local') ?? 'detailed'));
}

/** PATCH: a JSON Merge Patch of the host's writable fields; `null` resets a field to its default. */
export async function patchHost(ctx: Koa.Context, deps: ResourceRouteDeps, hostId: string): Promise<void> {
  const { view } = resolveHost(ctx, deps, hostId, 'write');
  const patch = await readMergePatch(ctx);
  rejectReadOnly(patch, HOST_READ_ONLY);
  const host = await viaService(() =>
    deps.hosts.update(hostId, (current) => parseInput(hostWriteSchema, applyMergePatch(current, patch)), actorOf(ctx)),
  );
  ctx.body = renderHost(ctx, deps, host, view);
}

export async function deleteHost(ctx: Koa.Context, deps: ResourceRouteDeps, hostId: string): Promise<void> {
  resolveHost(ctx, deps, hostId, 'write');
  await viaService(() => deps.hosts.remove(hostId, actorOf(ctx)));
  noContent(ctx);
}
