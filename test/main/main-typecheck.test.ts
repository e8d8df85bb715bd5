/**
 * main/ is type-checked against Electron's own definitions (electron.d.ts, skipLibCheck off),
 * not against `any`: a probe that misuses Electron's API, or passes the wrong Electron object
 * to one of main/'s injected interfaces, must fail to compile with the main/ tsconfig.
 */
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/cli.js';

const MAIN = path.join(REPO_ROOT, 'main');
const PROBE = path.join(MAIN, '__typecheck_probe__.ts');

function compileWithProbe(probe: string): ts.Diagnostic[] {
  const parsed = ts.getParsedCommandLineOfConfigFile(
    path.join(MAIN, 'tsconfig.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      },
    },
  );
  if (!parsed) throw new Error('main/tsconfig.json could not be read');
  const options = { ...parsed.options, noEmit: true, composite: false, declaration: false, incremental: false };
  const host = ts.createCompilerHost(options);
  // The probe exists in memory only, as if it were a file in main/.
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (file, language, ...rest) =>
    path.resolve(file) === PROBE ? ts.createSourceFile(file, probe, language) : getSourceFile(file, language, ...rest);
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (file) => path.resolve(file) === PROBE || fileExists(file);
  const program = ts.createProgram({
    rootNames: [...parsed.fileNames, PROBE],
    options,
    host,
    ...(parsed.projectReferences ? { projectReferences: parsed.projectReferences } : {}),
  });
  // Diagnostics of main/'s own files and the probe; the .d.ts files themselves are checked by `tsc -b`.
  const ownFiles = program
    .getSourceFiles()
    .filter((f) => !f.isDeclarationFile && path.resolve(f.fileName).startsWith(MAIN + path.sep));
  if (!ownFiles.some((f) => f.fileName.endsWith('tray-app.ts')))
    throw new Error('main/ sources were not part of the program');
  return [
    ...program.getOptionsDiagnostics(),
    ...program.getGlobalDiagnostics(),
    ...ownFiles.flatMap((f) => [...program.getSyntacticDiagnostics(f), ...program.getSemanticDiagnostics(f)]),
  ];
}

function describeDiagnostics(list: ts.Diagnostic[]): string[] {
  return list.map((d) => `${d.file ? path.relative(REPO_ROOT, d.file.fileName) : '-'} TS${d.code}`);
}

describe('main/ type-checks against Electron 41 definitions', () => {
  it('accepts the real main/ code and rejects misuse of Electron and of the injected interfaces', () => {
    const diagnostics = compileWithProbe(`
      import { app, session } from 'electron';
      import { claimSingleInstance } from './single-instance.js';
      import { hardenContents } from './window-hardening.js';
      import { installQuitHandler } from './quit-handler.js';
      import { createLogger } from '../agent/agent.js';
      const log = createLogger();
      installQuitHandler(app, { stop: async () => undefined, log });  // fine: App has on/exit
      app.requestSingleInstanceLok();                                  // misspelt Electron API
      claimSingleInstance(session.defaultSession, () => undefined);     // a Session is not an App
      hardenContents(app, () => null, log);                            // an App is not a WebContents
    `);
    const outsideProbe = diagnostics.filter((d) => d.file?.fileName !== PROBE);
    expect(describeDiagnostics(outsideProbe)).toEqual([]);
    expect(new Set(diagnostics.map((d) => d.file?.fileName)).size).toBe(1); // only the probe has errors
    const probe = diagnostics.filter((d) => d.file?.fileName === PROBE);
    const lines = probe.map((d) => d.file!.getLineAndCharacterOfPosition(d.start ?? 0).line);
    expect(describeDiagnostics(probe)).toEqual([
      'main/__typecheck_probe__.ts TS2551',
      'main/__typecheck_probe__.ts TS2345',
      'main/__typecheck_probe__.ts TS2345',
    ]);
    expect(lines).toEqual([8, 9, 10]);
  }, 60_000);
});
