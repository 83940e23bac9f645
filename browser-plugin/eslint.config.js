// ESLint for every script of the plugin: the page scripts (ES modules run inside Chromium), their tests and build
// (Node.js), the live view's script (served to a person's browser as it is) and the driver's code cache (Node.js,
// CommonJS). The recommended rules, and what the page scripts must not do: reach for a global the page could have
// replaced or read one they never declared.
import js from '@eslint/js';
import globals from 'globals';

export default [
  // The test pages' scripts are the web's own (vendored libraries, pages as sites write them), not the plugin's.
  { ignores: ['node_modules/', 'target/', 'src/test/resources/'] },
  js.configs.recommended,
  {
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      'no-unused-vars': ['error', { args: 'none', caughtErrors: 'none' }],
      'no-empty': ['error', { allowEmptyCatch: true }],
      eqeqeq: ['error', 'always'],
      'no-var': 'error',
      'prefer-const': 'error',
    },
  },
  {
    files: ['src/main/js/page/**/*.js'],
    languageOptions: { sourceType: 'module', globals: globals.browser },
  },
  {
    files: ['src/main/resources/dev/periscope/browser/handoff/**/*.js'],
    languageOptions: { sourceType: 'script', globals: globals.browser },
  },
  {
    files: ['src/main/resources/dev/periscope/browser/playwright/driver-code-cache.js'],
    languageOptions: { sourceType: 'commonjs', globals: globals.node },
  },
  {
    files: ['src/main/js/*.js', 'eslint.config.js'],
    languageOptions: { sourceType: 'module', globals: globals.node },
  },
  // A test runs in Node.js and hands functions to the page, which run there.
  {
    files: ['src/test/js/**/*.js'],
    languageOptions: { sourceType: 'module', globals: { ...globals.node, ...globals.browser } },
  },
];
