/**
 * The folder rules of docs/architecture.md as a test: a forbidden import fails here, with the file
 * and the import named, before it can become a habit.
 */
import fs from 'node:fs';
import path from 'node:path';
import { builtinModules } from 'node:module';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './helpers/cli.js';

const SOURCE = /\.(ts|tsx|mts|js|mjs)$/;
const IMPORT =
  /(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\s*\(\s*['"]([^'"]+)['"]\s*\)|import\s+['"]([^'"]+)['"]|require\(\s*['"]([^'"]+)['"]\s*\)/g;

function sourceFiles(folder: string): string[] {
  const root = path.join(REPO_ROOT, folder);
  if (!fs.existsSync(root)) return [];
  const out: string[] = [];
  for (const entry of fs.readdirSync(root, { withFileTypes: true, recursive: true })) {
    const full = path.join(entry.parentPath, entry.name);
    if (full.includes(`${path.sep}node_modules${path.sep}`) || full.includes(`${path.sep}dist${path.sep}`)) continue;
    if (entry.isFile() && SOURCE.test(entry.name)) out.push(full);
  }
  return out;
}

export function importsOf(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*/g, '');
  return [...text.matchAll(IMPORT)].map((m) => m[1] ?? m[2] ?? m[3] ?? m[4] ?? '');
}

/** Which top-level folder of the repository an import lands in, or null for a package. */
function targetFolder(file: string, specifier: string): string | null {
  if (!specifier.startsWith('.')) return null;
  const resolved = path.relative(REPO_ROOT, path.resolve(path.dirname(file), specifier));
  return resolved.split(path.sep)[0] ?? null;
}

const NODE_BUILTINS = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));

interface Rule {
  folder: string;
  forbid: (file: string, specifier: string) => string | null;
}

const RULES: Rule[] = [
  {
    folder: 'agent',
    forbid: (file, spec) =>
      spec === 'electron' || spec.startsWith('electron/')
        ? 'agent/ must not import electron'
        : ['main', 'renderer', 'test'].includes(targetFolder(file, spec) ?? '')
          ? 'agent/ may import only shared/ among the project folders'
          : null,
  },
  {
    folder: 'renderer',
    forbid: (file, spec) =>
      ['agent', 'main', 'test'].includes(targetFolder(file, spec) ?? '')
        ? 'renderer/ reaches the agent only through its typed client'
        : NODE_BUILTINS.has(spec) || spec === 'electron'
          ? 'renderer/ runs in a browser: no Node built-ins, no electron'
          : null,
  },
  {
    folder: 'shared',
    forbid: (file, spec) => {
      if (NODE_BUILTINS.has(spec)) return 'shared/ is pure: no Node built-ins';
      if (spec === 'electron') return 'shared/ is pure: no electron';
      const target = targetFolder(file, spec);
      return target !== null && target !== 'shared' ? 'shared/ imports only shared/' : null;
    },
  },
  {
    folder: 'main',
    forbid: (file, spec) => {
      const target = targetFolder(file, spec);
      if (target === 'renderer' || target === 'test') return 'main/ must not import renderer/ or test/';
      if (target === 'agent' && path.resolve(path.dirname(file), spec) !== path.join(REPO_ROOT, 'agent', 'agent.js')) {
        return 'main/ imports the agent through its public entry, agent/agent.ts, only';
      }
      return null;
    },
  },
];

/** Value imports of electron in main/ (not `import type`): only the entry may load Electron at run time. */
function runtimeElectronImports(file: string): number {
  const text = fs.readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*/g, '');
  return [...text.matchAll(/import\s+(?!type\b)[^'"]*?from\s*['"]electron['"]|require\(\s*['"]electron['"]\s*\)/g)]
    .length;
}

/**
 * Inside agent/, folders form layers: a folder imports only folders listed before it, so the
 * dependencies point one way and cannot form a cycle. Bottom: helpers with no knowledge of the
 * product (util, log, http). Then stores and services, which know nothing of HTTP. Then the
 * three HTTP edges (audit API, agent API, console). Then the setups that wire a running agent
 * and agent/agent.ts itself; on top the `vigil` command, which starts the agent or talks to it
 * (docs/architecture.md, "Dependency direction").
 */
export const AGENT_LAYERS = [
  'util',
  'log',
  'http',
  'store',
  'pipeline',
  'config',
  'integrity',
  'fleet',
  'tls',
  'net',
  'platform',
  'status',
  'outputs',
  'monitor',
  'alerts',
  'directory',
  'users',
  'auth',
  'resources',
  'audit',
  'api',
  'console',
  'setup',
  '.',
  'cli',
];

/** Upward imports that are deliberate, each with its reason. */
const AGENT_LAYER_EXCEPTIONS: Array<{ from: string; to: string; why: string }> = [
  {
    from: 'agent/resources/policy-xml.ts',
    to: 'agent/audit/',
    why: 'policies are read with the hardened XML reader of the audit API and its error type',
  },
];

/** The agent/ folder a file lies in ('.' for agent/agent.ts), or null outside agent/. */
function agentFolder(relative: string): string | null {
  const parts = relative.split(path.sep);
  if (parts[0] !== 'agent') return null;
  return parts.length === 2 ? '.' : parts[1]!;
}

export function upwardImports(): string[] {
  const found: string[] = [];
  for (const file of sourceFiles('agent')) {
    const from = path.relative(REPO_ROOT, file);
    const fromFolder = agentFolder(from);
    if (fromFolder === null) continue;
    for (const spec of importsOf(file)) {
      if (!spec.startsWith('.')) continue;
      const target = path.relative(REPO_ROOT, path.resolve(path.dirname(file), spec));
      const toFolder = agentFolder(target);
      if (toFolder === null || toFolder === fromFolder) continue;
      const rank = (folder: string): number => AGENT_LAYERS.indexOf(folder);
      if (rank(fromFolder) === -1) found.push(`${from}: folder agent/${fromFolder}/ has no layer`);
      else if (rank(toFolder) > rank(fromFolder)) {
        const allowed = AGENT_LAYER_EXCEPTIONS.some((e) => from === e.from && target.startsWith(e.to));
        if (!allowed) found.push(`${from} imports "${spec}": agent/${fromFolder}/ is below agent/${toFolder}/`);
      }
    }
  }
  return found;
}

describe('layers inside agent/ (docs/architecture.md)', () => {
  it('every folder imports only the folders below it', () => {
    expect(upwardImports()).toEqual([]);
  });

  it('every folder of agent/ has its place in the layers', () => {
    const folders = fs
      .readdirSync(path.join(REPO_ROOT, 'agent'), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
    expect(folders.filter((folder) => !AGENT_LAYERS.includes(folder))).toEqual([]);
  });
});

describe('layering (docs/architecture.md)', () => {
  for (const rule of RULES) {
    it(`${rule.folder}/ keeps its import rules`, () => {
      const violations: string[] = [];
      for (const file of sourceFiles(rule.folder)) {
        for (const spec of importsOf(file)) {
          const reason = rule.forbid(file, spec);
          if (reason) violations.push(`${path.relative(REPO_ROOT, file)} imports "${spec}": ${reason}`);
        }
      }
      expect(violations).toEqual([]);
    });
  }

  it('main/ loads electron at run time in main/index.ts only, so the rest runs in tests under Node', () => {
    const offenders = sourceFiles('main')
      .filter((file) => path.basename(file) !== 'index.ts' && runtimeElectronImports(file) > 0)
      .map((file) => path.relative(REPO_ROOT, file));
    expect(offenders).toEqual([]);
    expect(runtimeElectronImports(path.join(REPO_ROOT, 'main', 'index.ts'))).toBe(1);
  });

  it('the checker sees a forbidden import when there is one', () => {
    const file = path.join(REPO_ROOT, 'agent', 'x.ts');
    expect(RULES[0]!.forbid(file, 'electron')).toMatch(/electron/);
    expect(RULES[0]!.forbid(file, '../renderer/api-client.js')).toMatch(/shared/);
    expect(RULES[2]!.forbid(path.join(REPO_ROOT, 'shared', 'x.ts'), 'node:fs')).toMatch(/pure/);
    expect(RULES[2]!.forbid(path.join(REPO_ROOT, 'shared', 'x.ts'), 'fs')).toMatch(/pure/);
    expect(RULES[1]!.forbid(path.join(REPO_ROOT, 'renderer', 'x.ts'), '../agent/agent.js')).toMatch(/typed client/);
    const mainFile = path.join(REPO_ROOT, 'main', 'x.ts');
    expect(RULES[3]!.forbid(mainFile, '../agent/agent.js')).toBeNull();
    expect(RULES[3]!.forbid(mainFile, '../agent/net/listener.js')).toMatch(/public entry/);
    expect(RULES[3]!.forbid(mainFile, '../renderer/main.js')).toMatch(/renderer/);
  });

  it('reads the import forms the code base uses', () => {
    const sample = path.join(REPO_ROOT, 'agent', 'setup', 'listeners-setup.ts');
    expect(importsOf(sample)).toContain('node:https');
    expect(importsOf(sample)).toContain('../config/settings-store.js');
  });
});
