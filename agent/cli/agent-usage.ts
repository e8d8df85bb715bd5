/** Usage line of `vigil agent` (kept apart so `vigil --help` does not load the agent). */
export const AGENT_USAGE = `vigil agent [--data-dir DIR] [--api-port N] [--audit-port N] [--console-port N]`;
