// @ts-check
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      'coverage/**',
      '.cluster/**',
      'bench/results/**',
      'test-artifacts/**',
      // Type-checked by the OpenAPI test against the types it generates (test/e2e/openapi.e2e-spec.ts).
      'test/fixtures/openapi/**',
      '**/*.js',
      '**/*.mjs',
      '**/*.cjs',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { project: ['./tsconfig.eslint.json'], tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      // A name that starts with `_` is unused on purpose (a parameter a signature needs, a key left out of a rest).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
      // Implementations of Promise-returning interfaces (storages, hooks, handlers) are async without awaiting.
      '@typescript-eslint/require-await': 'off',
      // A caught error (`unknown`) is passed on as it came.
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingUnknown: true }],
      '@typescript-eslint/only-throw-error': ['error', { allowThrowingUnknown: true }],
    },
  },
  {
    // WordPress's sanitizers and PHP's string functions match control characters on purpose.
    files: ['src/core/formatting/**/*.ts', 'src/core/text/**/*.ts'],
    rules: { 'no-control-regex': 'off' },
  },
  {
    // Tests and the reliability tools read JSON answers (supertest's `body`, fetch's `json()`), which are `any`:
    // their assertions check the shapes.
    files: ['test/**/*.ts', 'src/**/*.spec.ts', 'scripts/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
  prettier,
);
