/**
 * Handlers for outputs, shared by host outputs (`/hosts/{id}/outputs/...`), domain outputs
 * (`/domains/{id}/outputs/...`) and `/outputs/...`: parse and check the input, call
 * OutputService, shape the Output resource (which has no Detailed Only attribute).
 */
import type Koa from 'koa';
import { applyMergePatch } from '../../shared/merge-patch.js';
import type { AnyOutput, OutputOwner } from '../resources/output-service.js';
import { OUTPUT_READ_ONLY, outputWriteSchema, type OutputView } from './schemas/output-schemas.js';
import { outputView } from './views/output-view.js';
import { parseInput, readJsonBody, readMergePatch, rejectReadOnly, viaService } from './request-input.js';
import { created, noContent, resolve, type Resolved } from './resource-access.js';
import { actorOf, viewDeps, type ResourceRouteDeps } from './resource-deps.js';
import { checkSyslogDestination } from './syslog-destination.js';

export function renderOutput(ctx: Koa.Context, deps: ResourceRouteDeps, output: AnyOutput): OutputView {
  return outputView(output, viewDeps(ctx, deps));
}

function belongsTo(output: AnyOutput | undefined, owner: OutputOwner): boolean {
  if (!output) return false;
  return owner.hostId !== undefined ? output.hostId === owner.hostId : output.domainId === owner.domainId;
}

/** An output named by id, under its owner when the path names one (an output of another owner is "no such output"). */
export function resolveOutput(
  ctx: Koa.Context,
  deps: ResourceRouteDeps,
  outputId: string,
  owner: OutputOwner | null,
  action: 'read' | 'write' = 'read',
): Resolved<AnyOutput> {
  const output = deps.outputs.find(outputId);
  return resolve(
    ctx,
    'output',
    action,
    owner === null || belongsTo(output, owner) ? output : undefined,
    'there is no such output',
  );
}

export async function createOutput(ctx: Koa.Context, deps: ResourceRouteDeps, owner: OutputOwner): Promise<void> {
  const body = await readJsonBody(ctx);
  rejectReadOnly(body, OUTPUT_READ_ONLY);
  const fields = parseInput(outputWriteSchema, body);
  checkSyslogDestination(ctx, null, fields);
  const output = await viaService(() => deps.outputs.create(owner, fields, actorOf(ctx)));
  created(ctx, renderOutput(ctx, deps, output));
}

/** PATCH: a JSON Merge Patch of the output's writable fields (`logFile`, `syslog`, `fileFilter` merge member by member). */
export async function patchOutput(
  ctx: Koa.Context,
  deps: ResourceRouteDeps,
  outputId: string,
  owner: OutputOwner,
): Promise<void> {
  resolveOutput(ctx, deps, outputId, owner, 'write');
  const patch = await readMergePatch(ctx);
  rejectReadOnly(patch, OUTPUT_READ_ONLY);
  const output = await viaService(() =>
    deps.outputs.update(
      outputId,
      (current) => {
        const fields = parseInput(outputWriteSchema, applyMergePatch(current, patch));
        checkSyslogDestination(ctx, current, fields);
        return fields;
      },
      actorOf(ctx),
    ),
  );
  ctx.body = renderOutput(ctx, deps, output);
}

export async function deleteOutput(
  ctx: Koa.Context,
  deps: ResourceRouteDeps,
  outputId: string,
  owner: OutputOwner,
): Promise<void> {
  resolveOutput(ctx, deps, outputId, owner, 'write');
  await viaService(() => deps.outputs.remove(outputId, actorOf(ctx)));
  noContent(ctx);
}
