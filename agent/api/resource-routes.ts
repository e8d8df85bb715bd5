/** Every resource route of the agent API, registered on the authenticated router. */
import type { AgentApiRouter } from './openapi/route-doc.js';
import { registerAgentRoutes } from './agents-router.js';
import { registerDomainRoutes } from './domains-router.js';
import { registerHostRoutes } from './hosts-router.js';
import { registerLogFileRoutes } from './log-files-router.js';
import { registerOutputRoutes } from './outputs-router.js';
import type { ResourceRouteDeps } from './resource-deps.js';

export function registerResourceRoutes(router: AgentApiRouter, deps: ResourceRouteDeps): void {
  registerAgentRoutes(router, deps);
  registerHostRoutes(router, deps);
  registerOutputRoutes(router, deps);
  registerDomainRoutes(router, deps);
  registerLogFileRoutes(router, deps);
}
