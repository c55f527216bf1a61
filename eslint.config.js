// @ts-check
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'coverage/', 'node_modules/', 'migrations/', 'scratch/', 'test-output/'] },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/explicit-module-boundary-types': 'error',
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true, allowBoolean: true }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-extraneous-class': 'off',
      '@typescript-eslint/no-invalid-void-type': 'off',
      // Fastify handlers and hooks are async by contract, awaiting or not.
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-confusing-void-expression': 'off',
      'no-console': 'error',
      eqeqeq: ['error', 'always'],
    },
  },
  {
    // One HTTP stack (src/net): product code never reaches the process-global dispatcher, which is
    // Node's bundled undici when its fetch ran first, nor the global fetch that uses it.
    files: ['src/**/*.ts'],
    rules: {
      'no-restricted-globals': ['error', { name: 'fetch', message: 'Use a dispatcher from src/net (or a registry client) instead of the global fetch.' }],
      'no-restricted-properties': [
        'error',
        { object: 'globalThis', property: 'fetch', message: 'Use a dispatcher from src/net instead of the global fetch.' },
        { object: 'global', property: 'fetch', message: 'Use a dispatcher from src/net instead of the global fetch.' },
      ],
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: 'undici',
              importNames: ['getGlobalDispatcher', 'setGlobalDispatcher', 'fetch'],
              message: 'Pass a dispatcher made in src/net; the global one may be Node’s bundled undici.',
            },
          ],
        },
      ],
    },
  },
  {
    // Tests and benchmarks may print and use looser helpers; the product's boundaries stay strict.
    files: ['test/**', 'bench/**'],
    rules: {
      'no-console': 'off',
      '@typescript-eslint/explicit-module-boundary-types': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
  {
    // The web console runs in browsers: their globals, none of Node's.
    files: ['console/**'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    // Build scripts run in Node.
    files: ['scripts/*.js'],
    languageOptions: { globals: { ...globals.node } },
  },
  {
    files: ['eslint.config.js', 'scripts/*.js'],
    extends: [tseslint.configs.disableTypeChecked],
  },
  {
    // The few CommonJS helpers that generated code requires (typed by a `.d.cts` beside each).
    files: ['**/*.cjs'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly', module: 'writable' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
