import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { builtinModules } from 'node:module';

// Workflow code must stay deterministic: no Node built-ins, and activities only as types.
const nodeBuiltins = builtinModules.flatMap((name) => [name, `node:${name}`]);

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', '.test-tmp/', 'coverage/', 'examples/*/node_modules/', 'test/support/summary-reporter.js'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', require: 'readonly', module: 'writable', __dirname: 'readonly', Buffer: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', structuredClone: 'readonly', AbortController: 'readonly', URL: 'readonly', Headers: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-require-imports': 'off',
    },
  },
  {
    files: ['workflows/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            ...nodeBuiltins.map((name) => ({ name, message: 'Workflow code must be deterministic: do I/O in an activity.' })),
            // Over half the bundle, evaluated again for every workflow: the input is checked by core/input-check.ts.
            { name: 'zod', message: 'Keep zod out of the workflow bundle: check shapes with core/input-check.ts, on the client or in an activity.' },
          ],
          patterns: [
            {
              group: ['../activities/*', '../activities', '../tools/*', '../tools', '!../tools/define-tool'],
              allowTypeImports: true,
              message: 'Workflows import activity and tool code as types only (import type).',
            },
          ],
        },
      ],
    },
  },
  {
    // The benchmarks' own workflows (the floor, the peer agent) run in the same sandbox.
    files: ['bench/**/workflows.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { paths: nodeBuiltins.map((name) => ({ name, message: 'Workflow code must be deterministic: do I/O in an activity.' })) },
      ],
    },
  },
);
