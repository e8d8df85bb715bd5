// ESLint flat config: typescript-eslint's recommended rules for every folder, Prettier owns
// formatting. Folder layering is enforced by test/layers.test.ts and the per-folder tsconfigs.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';
import globals from 'globals';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'renderer/dist/**', 'release/**', 'coverage/**', 'test-results/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  prettier,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
      'no-console': 'off',
    },
  },
  {
    files: ['renderer/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    // main/ compiles with the DOM lib only because Electron's type definitions need it; the
    // main process has no DOM, so its globals are refused here.
    files: ['main/**/*.ts'],
    rules: {
      'no-restricted-globals': [
        'error',
        ...['window', 'document', 'localStorage', 'sessionStorage', 'location', 'alert', 'HTMLElement'].map((name) => ({
          name,
          message: "main/ runs in Electron's main process, which has no DOM",
        })),
      ],
    },
  },
);
