/**
 * Electron main-process entry (package.json "main": dist/main/index.js). The only module that
 * loads electron at run time; everything else in main/ receives what it needs, which is what
 * lets test/main run under plain Node.
 */
import { app, BrowserWindow, Menu, Notification, Tray, clipboard, session, shell } from 'electron';
import { runTrayApp } from './tray-app.js';

runTrayApp({ app, BrowserWindow, Menu, Notification, Tray, clipboard, session, shell });
