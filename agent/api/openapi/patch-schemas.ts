/** The JSON Merge Patch bodies of the agent API's PATCH routes, as the OpenAPI description shows them. */
import { z } from 'zod';
import { agentCreateSchema, localAgentWriteSchema } from '../schemas/agent-schemas.js';
import { hostWriteSchema } from '../schemas/host-schemas.js';
import { outputWriteSchema } from '../schemas/output-schemas.js';
import { policyWriteSchema } from '../schemas/policy-schemas.js';
import { mergePatchOf } from './route-doc.js';

export const agentPatchSchema = z
  .union([
    mergePatchOf(
      localAgentWriteSchema,
      'LocalAgentPatch',
      'the agent hosting the API; null resets a field to its default.',
    ),
    mergePatchOf(agentCreateSchema, 'RegisteredAgentPatch', 'a registered agent; null resets a field to its default.'),
  ])
  .meta({ id: 'AgentPatch' });
export const hostPatchSchema = mergePatchOf(hostWriteSchema, 'HostPatch', 'null resets a field to its default.');
export const outputPatchSchema = mergePatchOf(
  outputWriteSchema,
  'OutputPatch',
  'logFile, syslog and fileFilter merge member by member; null removes a member.',
);
export const policyPatchSchema = mergePatchOf(policyWriteSchema, 'PolicyPatch', 'null resets a field to its default.');
