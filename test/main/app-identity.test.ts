/**
 * The tray app and the headless agent must agree on the data folder: Electron's userData is
 * appData + package.json productName, and agent/config/data-dir.ts computes appData +
 * PRODUCT_NAME. These tests pin every copy of the name and the id together.
 */
import fs from 'node:fs';
import path from 'node:path';
import yaml from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { PRODUCT_NAME as AGENT_PRODUCT_NAME, appDataFolder, resolveDataDir } from '../../agent/config/data-dir.js';
import { APP_ID, PRODUCT_NAME } from '../../main/app-identity.js';
import { trayDataDir } from '../../main/tray-data-dir.js';
import { REPO_ROOT } from '../helpers/cli.js';

const packageJson = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
  productName?: string;
  main?: string;
};
const builderConfig = yaml.load(fs.readFileSync(path.join(REPO_ROOT, 'electron-builder.yml'), 'utf8')) as {
  appId?: string;
  productName?: string;
};

describe('app identity', () => {
  it('names the product Vigil in package.json, electron-builder.yml, main/ and agent/', () => {
    expect(packageJson.productName).toBe('Vigil');
    expect(PRODUCT_NAME).toBe(packageJson.productName);
    expect(AGENT_PRODUCT_NAME).toBe(packageJson.productName);
    expect(builderConfig.productName).toBe(packageJson.productName);
  });

  it('uses one app id for packaging and for Windows notifications', () => {
    expect(builderConfig.appId).toBe(APP_ID);
    expect(APP_ID).toMatch(/^[a-z][a-z0-9-]*(\.[a-z0-9-]+)+$/); // reverse-DNS, as macOS bundle ids need
  });

  it('points package.json "main" at the compiled main-process entry', () => {
    expect(packageJson.main).toBe('dist/main/index.js');
    expect(fs.existsSync(path.join(REPO_ROOT, 'main', 'index.ts'))).toBe(true);
  });
});

describe('data directory shared by the tray app and the headless agent', () => {
  const home = path.join(path.sep, 'home', 'ada');
  it.each([
    ['linux', {}],
    ['linux', { XDG_CONFIG_HOME: path.join(path.sep, 'cfg') }],
    ['darwin', {}],
    ['win32', { APPDATA: path.join(path.sep, 'Users', 'ada', 'AppData', 'Roaming') }],
  ] as const)('on %s %o, the agent default is userData (appData + productName)', (platform, env) => {
    // What Electron computes for the tray app: app.getPath('userData') = appData/productName.
    const userData = path.join(appDataFolder(env, platform, home), packageJson.productName ?? '');
    expect(resolveDataDir({ env, platform, home })).toBe(userData);
    expect(trayDataDir(userData, env)).toBe(userData);
  });

  it('honours VIGIL_DATA_DIR in the tray app as the agent does', () => {
    const env = { VIGIL_DATA_DIR: path.join(path.sep, 'srv', 'vigil') };
    expect(trayDataDir('/ignored/userData', env)).toBe(resolveDataDir({ env }));
  });
});
