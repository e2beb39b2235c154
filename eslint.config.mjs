// Type-checked lint rules (typescript-eslint). An un-awaited promise is the classic queue bug (a lost
// queue.add, a transaction committed after its caller answered), so the promise rules are errors.
import eslint from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'coverage/', 'shared/generated/'] },
  eslint.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      globals: globals.node,
      parserOptions: {
        projectService: { allowDefaultProject: ['*.js', '*.mjs', 'scripts/*.js'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      // Express knows an error handler by its four parameters, so an unused `_next` must stay.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      // `async () => value` is how a callback meets a promise-returning signature without wrapping.
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  { files: ['**/*.mjs'], languageOptions: { sourceType: 'module' } },
  {
    // Line budgets for source: a file over 300 lines or a function over 60 is asking to be split, so a
    // reader can hold one responsibility at a time. Blank lines and comments do not count.
    files: [
      'api/**/*.ts',
      'worker/**/*.ts',
      'shared/**/*.ts',
      'client/**/*.ts',
      'scripts/**/*.ts',
      'bench/**/*.ts',
      'prisma/**/*.ts',
    ],
    rules: {
      'max-lines': ['error', { max: 300, skipBlankLines: true, skipComments: true }],
      'max-lines-per-function': ['error', { max: 60, skipBlankLines: true, skipComments: true }],
    },
  },
  {
    // Declarative tables, not logic: the OpenAPI error-code catalogue and example bodies are one entry per
    // answer the service can give. Splitting them would scatter one table across files without making
    // any of it easier to follow.
    files: ['shared/openapi/error-codes.ts', 'shared/openapi/examples.ts'],
    rules: { 'max-lines': 'off', 'max-lines-per-function': 'off' },
  },
  {
    // Tests read JSON response bodies as `any` and pin them down with expect(); the promise rules stay.
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
);
