/**
 * electron-builder.yml cannot be exercised here (packaging downloads Electron, docs/architecture.md),
 * so this test checks what can be checked offline: the file passes electron-builder's own
 * schema validation, names the targets and icons README.md lists, and its `files` list
 * (evaluated the way electron-builder does: minimatch with dot:true, later patterns win)
 * selects the compiled app and nothing from the sources, tests or benchmarks.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import yaml from 'js-yaml';
import { Minimatch } from 'minimatch';
import { describe, expect, it } from 'vitest';
import { TRAY_STATES } from '../../assets/generator/icons.js';
import { assetsDir, trayIconFile, windowIconFile } from '../../main/tray-icons.js';
import { REPO_ROOT } from '../helpers/cli.js';

/** The part of electron-builder's Configuration this project sets (its own .d.ts files do not typecheck under skipLibCheck:false). */
interface BuilderConfig {
  appId?: string;
  productName?: string;
  directories?: { output?: string };
  files?: string[];
  asar?: boolean;
  asarUnpack?: string[];
  npmRebuild?: boolean;
  mac?: { target?: string[]; icon?: string };
  win?: { target?: string[]; icon?: string };
  linux?: { target?: string[]; icon?: string; maintainer?: string };
  extraResources?: Array<{ from: string; to: string }>;
}

const CONFIG_FILE = path.join(REPO_ROOT, 'electron-builder.yml');
const config = yaml.load(fs.readFileSync(CONFIG_FILE, 'utf8')) as BuilderConfig;
const packageJson = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
  main: string;
  scripts: Record<string, string>;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

/** Every file under the repository (relative, with /), as electron-builder walks the app folder. */
function projectFiles(): string[] {
  const skip = new Set(['node_modules', '.git', 'release']);
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      if (skip.has(entry.name) && dir === REPO_ROOT) continue;
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else out.push(path.relative(REPO_ROOT, full).split(path.sep).join('/'));
    }
  };
  walk(REPO_ROOT);
  return out;
}

/**
 * Folders of the packages electron-builder ships: "dependencies" and, transitively, their
 * dependencies and optional dependencies (where prebuilt native parts usually live).
 */
function productionPackageDirs(): string[] {
  const found = new Set<string>();
  const visit = (name: string, from: string): void => {
    // Node's resolution: the nearest node_modules/<name> walking up from the requiring package.
    for (let dir = from; ; dir = path.dirname(dir)) {
      const candidate = path.join(dir, 'node_modules', name);
      if (fs.existsSync(path.join(candidate, 'package.json'))) {
        if (found.has(candidate)) return;
        found.add(candidate);
        const pkg = JSON.parse(fs.readFileSync(path.join(candidate, 'package.json'), 'utf8')) as {
          dependencies?: Record<string, string>;
          optionalDependencies?: Record<string, string>;
        };
        for (const dep of Object.keys({ ...pkg.dependencies, ...pkg.optionalDependencies })) visit(dep, candidate);
        return;
      }
      if (dir === REPO_ROOT || path.dirname(dir) === dir) return; // an optional dependency not installed here
    }
  };
  for (const name of Object.keys(packageJson.dependencies)) visit(name, REPO_ROOT);
  return [...found];
}

const patterns = (config.files ?? []).map((p) => new Minimatch(p, { dot: true }));

/** minimatch-all, as app-builder-lib/out/util/filter.js: the last pattern that matches decides. */
function selected(file: string): boolean {
  let match = false;
  for (const pattern of patterns) {
    if (match !== pattern.negate) continue;
    match = pattern.match(file);
  }
  return match;
}

const files = projectFiles();
const shipped = files.filter(selected);

describe('electron-builder.yml', () => {
  it("passes electron-builder's own configuration schema", async () => {
    // app-builder-lib is electron-builder's engine; its loader reads this file exactly as `npm run dist` will.
    const require = createRequire(import.meta.url);
    const builderDir = path.dirname(require.resolve('electron-builder/package.json'));
    const load = createRequire(path.join(builderDir, 'package.json'));
    const { getConfig, validateConfiguration } = load('app-builder-lib/out/util/config/config.js') as {
      getConfig(projectDir: string, configPath: string | null, fromOptions: null): Promise<Record<string, unknown>>;
      validateConfiguration(config: Record<string, unknown>, debugLogger: unknown): Promise<void>;
    };
    const { DebugLogger } = load('builder-util') as { DebugLogger: new (enabled: boolean) => unknown };
    const loaded = await getConfig(REPO_ROOT, null, null);
    expect(loaded['appId']).toBe(config.appId);
    await expect(validateConfiguration(loaded, new DebugLogger(false))).resolves.toBeUndefined();
    // The validator is not a rubber stamp: a misspelt key fails it.
    await expect(
      validateConfiguration({ ...loaded, linux: { targets: ['deb'] } }, new DebugLogger(false)),
    ).rejects.toThrow(/configuration\.linux/);
  });

  it('has the app id, product name and output folder', () => {
    expect(config.appId).toMatch(/^[a-z0-9.-]+$/);
    expect(config.productName).toBe('Vigil');
    expect(config.directories?.output).toBe('release'); // ignored by git, ESLint and Prettier
  });

  it('builds AppImage and deb on Linux, NSIS on Windows, dmg on macOS', () => {
    expect(config.linux?.target).toEqual(expect.arrayContaining(['AppImage', 'deb']));
    expect(config.win?.target).toEqual(['nsis']);
    expect(config.mac?.target).toEqual(['dmg']);
    expect(config.linux?.maintainer).toMatch(/<.+@.+>/); // the deb target refuses to build without one
  });

  it('names icons that exist in the formats each platform wants', () => {
    expect(config.mac?.icon).toMatch(/\.icns$/);
    expect(config.win?.icon).toMatch(/\.ico$/);
    for (const icon of [config.mac?.icon, config.win?.icon])
      expect(fs.existsSync(path.join(REPO_ROOT, icon ?? '-')), icon).toBe(true);
    const linuxIcons = path.join(REPO_ROOT, config.linux?.icon ?? '-');
    expect(fs.readdirSync(linuxIcons).filter((f) => /^\d+x\d+\.png$/.test(f)).length).toBeGreaterThanOrEqual(4);
  });

  it('every files pattern selects something, once the app is built', () => {
    const rendererHasSources = fs.existsSync(path.join(REPO_ROOT, 'renderer', 'index.html'));
    for (const pattern of patterns.filter((p) => !p.negate)) {
      // renderer/dist is the console web app's build output; before renderer/ has an app there is nothing to build.
      if (pattern.pattern.startsWith('renderer/dist') && !rendererHasSources) continue;
      expect(
        files.some((f) => pattern.match(f)),
        `${pattern.pattern} matches no file (run npm run build first)`,
      ).toBe(true);
    }
  });

  it('ships the compiled entry points and package.json in the archive', () => {
    for (const file of ['package.json', packageJson.main, 'dist/agent/agent.js', 'dist/shared/console-api.js']) {
      expect(shipped, file).toContain(file);
    }
  });

  it('puts every icon main/ loads in the resources folder, where main/ looks for it when packaged', () => {
    // What electron-builder copies: each file under `from` lands at `to` + its path below `from`.
    const resources = new Set<string>();
    for (const { from, to } of config.extraResources ?? []) {
      for (const file of files) {
        if (file === from) resources.add(to);
        else if (file.startsWith(`${from}/`)) resources.add(`${to}${file.slice(from.length)}`);
      }
    }
    const resourcesPath = path.join(path.sep, 'opt', 'Vigil', 'resources');
    const packaged = assetsDir({ isPackaged: true, appPath: '/opt/Vigil/resources/app.asar', resourcesPath });
    const needed = [
      ...(['darwin', 'win32', 'linux'] as const).flatMap((platform) =>
        TRAY_STATES.map((state) => trayIconFile(state, platform, packaged)),
      ),
      ...TRAY_STATES.map((state) => trayIconFile(state, 'darwin', packaged).replace(/\.png$/, '@2x.png')),
      windowIconFile(packaged),
    ].map((file) => path.relative(resourcesPath, file).split(path.sep).join('/'));
    for (const file of needed) expect([...resources], file).toContain(file);
  });

  it('ships nothing from the sources, tests, benchmarks, docs or build bookkeeping', () => {
    const leaks = shipped.filter(
      (f) =>
        /^(test|bench|docs|main|agent|shared|renderer\/(?!dist\/)|assets|\.ci)\//.test(f) ||
        /\.(ts|tsx|map)$/.test(f) ||
        f.startsWith('dist/.tsbuildinfo/') ||
        f === 'electron-builder.yml',
    );
    expect(leaks).toEqual([]);
    expect(shipped.length).toBeGreaterThan(20);
  });

  it('keeps native modules of production dependencies out of the asar archive, rebuilt for Electron', () => {
    expect(config.npmRebuild).toBe(true);
    expect(config.asar).toBe(true);
    const unpack = (config.asarUnpack ?? []).map((p) => new Minimatch(p, { dot: true }));
    const nativeFiles: string[] = [];
    for (const dir of productionPackageDirs()) {
      for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
        if (entry.isFile() && entry.name.endsWith('.node')) {
          nativeFiles.push(path.relative(REPO_ROOT, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'));
        }
      }
    }
    expect(nativeFiles.some((f) => f.startsWith('node_modules/better-sqlite3/'))).toBe(true);
    for (const file of nativeFiles)
      expect(
        unpack.some((p) => p.match(file)),
        file,
      ).toBe(true);
    // electron-builder refuses electron in "dependencies"; it must stay a devDependency.
    expect(packageJson.dependencies['electron']).toBeUndefined();
    expect(packageJson.devDependencies['electron']).toBeDefined();
  });

  it('is what `npm run dist` packages, and the README documents it', () => {
    expect(packageJson.scripts['dist']).toMatch(/npm run build && electron-builder/);
    expect(fs.readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8')).toContain('npm run dist');
  });
});
