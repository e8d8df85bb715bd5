/**
 * Names the operating systems know the app by. PRODUCT_NAME must equal package.json
 * "productName": Electron derives `app.getPath('userData')` from it (appData/Vigil), and the
 * headless agent computes the same folder (agent/config/data-dir.ts), so both share one data
 * directory. test/main/app-identity.test.ts keeps package.json, electron-builder.yml and the
 * agent in agreement.
 */
export const PRODUCT_NAME = 'Vigil';

/**
 * electron-builder's appId: the macOS bundle id, and on Windows the AppUserModelID that
 * notifications are attributed to (Electron docs, "Notifications" > Windows).
 */
export const APP_ID = 'org.vigil.tray';
