import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { builtinModules } from 'node:module';

// Workflow code must stay deterministic: no Node built-ins, and activities only as types.
const nodeBuiltins = builtinModules.flatMap((name) => [name, `node:${name}`]);

/** core/ files that are zod schemas, for the client and the activities: workflow code imports their types only. */
const zodSchemaFiles = ['input', 'agent-spec', 'messages', 'resolve-input'];

/** The packages workflow code may import: the workflow SDK (and the parts of the SDK it uses itself). */
const workflowPackages = ['@temporalio/workflow', '@temporalio/workflow-streams/workflow', '@temporalio/common'];

/**
 * The imports workflow code may make: the workflow packages, any file of `folders` (as the importing file writes
 * them), the `files`, and any core/ file (reached as `core`) but the zod schemas. One regular expression matches every
 * import but these, so that a new import of anything else fails until it is listed here. (gitignore-style negations
 * cannot let a path through below one already refused, hence a regular expression.)
 */
function workflowAllowList({ core, folders, files }) {
  const escape = (text) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  const allowed = [
    ...[...workflowPackages, ...files].map(escape),
    ...folders.map((folder) => `${escape(folder)}/[\\w.-]+`),
    `${escape(core)}/(?!(?:${zodSchemaFiles.join('|')})$)[\\w.-]+`,
  ];
  return {
    patterns: [
      {
        regex: `^(?!(?:${allowed.join('|')})$)`,
        allowTypeImports: true,
        message:
          'Workflow code imports only workflow-safe code (the allow-list in eslint.config.mjs: @temporalio/workflow, core/ but its zod schemas, workflows/ (and workflows/mcp/, workflows/guardrails/), evals/workflow/): do I/O and Node-only work in an activity, and import activity, tool and schema code as types only (import type).',
      },
    ],
  };
}

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      'dist/',
      '.test-tmp/',
      'coverage/',
      'examples/*/node_modules/',
      'examples/*/dist/',
      'test/support/summary-reporter.js',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        require: 'readonly',
        module: 'writable',
        __dirname: 'readonly',
        Buffer: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        structuredClone: 'readonly',
        AbortController: 'readonly',
        URL: 'readonly',
        Headers: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-require-imports': 'off',
    },
  },
  // Workflow code runs in Temporal's sandbox, and every workflow a worker starts evaluates the bundle's modules again
  // (bench/NOTES.md). So it imports from an allow-list: the workflow SDK, and our own files that are workflow code too.
  // A new import of anything else fails lint; a type-only import (`import type`) of anything is fine.
  {
    files: ['workflows/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        workflowAllowList({ core: '../core', folders: ['.', './mcp', './guardrails'], files: ['../mcp/types'] }),
      ],
    },
  },
  {
    // The workflow bundles' entries: `durable-agent/workflow` (workflow.ts) and the worker's (worker/workflows.ts).
    files: ['workflow.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        workflowAllowList({ core: './core', folders: ['./workflows', './evals/workflow', './time/workflow'], files: [] }),
      ],
    },
  },
  {
    files: ['worker/workflows.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        workflowAllowList({
          core: '../core',
          folders: ['../evals/workflow', '../time/workflow'],
          files: ['../workflows', '../workflows/workflow-tools'],
        }),
      ],
    },
  },
  {
    // The eval workflow (evals/workflow/): the same sandbox, and it starts agent runs as children.
    files: ['evals/workflow/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        workflowAllowList({
          core: '../../core',
          folders: ['.', '../../workflows'],
          // The judge's input and verdict are pure (evals/graders/): the eval builds and reads its judge runs with them.
          files: ['../graders/judge-input', '../graders/judge-verdict'],
        }),
      ],
    },
  },
  {
    // The time tools' workflow side (time/workflow/), and the pure names and update definition it shares with the client.
    files: ['time/workflow/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        workflowAllowList({ core: '../../core', folders: [], files: ['../event-update', '../names'] }),
      ],
    },
  },
  {
    files: ['time/names.ts', 'time/event-update.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', workflowAllowList({ core: '../core', folders: [], files: [] })],
    },
  },
  {
    // The MCP client's workflow side (workflows/mcp/) and the guardrails' (workflows/guardrails/): what a run does for
    // them, and the workflow files they call.
    files: ['workflows/mcp/**/*.ts', 'workflows/guardrails/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        workflowAllowList({ core: '../../core', folders: ['.', '..'], files: ['../../mcp/types'] }),
      ],
    },
  },
  {
    // Plain listing types and names the workflow imports from mcp/ (its other files are activities).
    files: ['mcp/types.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', workflowAllowList({ core: '../core', folders: [], files: [] })],
    },
  },
  {
    // core/ is shared by the client, the activities and the workflow, and the workflow imports its files: each one is
    // workflow-safe too, except the zod schemas the client and the activities check with (never imported by workflow code).
    files: ['core/**/*.ts'],
    ignores: zodSchemaFiles.map((name) => `core/${name}.ts`),
    rules: { '@typescript-eslint/no-restricted-imports': ['error', workflowAllowList({ core: '.', folders: [], files: [] })] },
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
