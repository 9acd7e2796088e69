// Lint rules for the whole project: ESLint's and typescript-eslint's recommended sets, plus the few rules the
// codebase relies on (no focused tests, unused names only when prefixed with _).
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      'cdk.out/',
      '.data/',
      'coverage/',
      'client/schema.d.ts',
      'client/dist/',
      'functions/http/generated/',
      'bench/results/',
      'reports/',
      '.stryker-tmp/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
          ignoreRestSiblings: true,
        },
      ],
      'no-restricted-properties': [
        'error',
        { object: 'it', property: 'only', message: 'Focused tests must not be committed.' },
        { object: 'describe', property: 'only', message: 'Focused tests must not be committed.' },
      ],
    },
  },
);
