// ESLint: typescript-eslint's type-checked rules over src, test, bench and scripts (and the local page's
// JavaScript, type-checked through packages/slack-standin/page/tsconfig.json); Prettier owns layout (eslint-config-prettier
// turns off the rules that would fight it). Every eslint-disable says why, on its own line.
import comments from '@eslint-community/eslint-plugin-eslint-comments/configs';
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'coverage/', 'reports/', '.stryker-tmp/', 'node_modules/', 'bench/results/'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  comments.recommended,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
      globals: { ...globals.node },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@eslint-community/eslint-comments/require-description': ['error', { ignore: ['eslint-enable'] }],
      '@eslint-community/eslint-comments/no-unused-disable': 'error',
    },
  },
  {
    // Bolt checks every request's signature; its option to stop doing so is never written, whatever it would save
    // (docs/production.md, "Who may reach the bot"). Nor is App's, which passes it on to the receiver it builds.
    files: ['src/**/*.ts', 'bench/**/*.ts', 'packages/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "Property[key.name='signatureVerification'], Property[key.value='signatureVerification']",
          message: 'Bolt\'s signature verification stays on (docs/production.md, "Who may reach the bot").',
        },
      ],
    },
  },
  {
    // Test doubles stand in for async contracts (stores, policies, cloud clients): written `async`, a double's throw is
    // a rejection, as in the real implementation, even when the double has nothing to await.
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/require-await': 'off' },
  },
  {
    // The local page runs in the browser, as ES modules; its types come from its own tsconfig (lib DOM, checkJs).
    files: ['packages/slack-standin/page/**/*.js'],
    languageOptions: { sourceType: 'module', globals: { ...globals.browser } },
  },
  {
    // Plain JavaScript run by node as it is (the build script, jest's configs, this file): in no tsconfig, so not type-checked.
    files: ['**/*.js', '**/*.cjs', '**/*.mjs'],
    ignores: ['packages/slack-standin/page/**'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    // Those .js files are CommonJS (package.json has no "type": "module"): require() is how they import.
    files: ['**/*.js', '**/*.cjs'],
    ignores: ['packages/slack-standin/page/**'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  prettier,
  {
    // Prettier breaks code at 160 columns but never a string or a comment: this keeps those within 160 too.
    // (Core's max-len is deprecated in favour of @stylistic's and stays in ESLint until version 11.)
    rules: { 'max-len': ['error', { code: 160, tabWidth: 2 }] },
  },
);
