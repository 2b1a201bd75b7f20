import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { ApprovalPolicy } from '../../core/agent-spec';
import {
  combinedPolicy,
  deniedPathsFor,
  evaluatePolicy,
  pathGlobMatches,
  policyProblems,
  textGlobMatches,
  type PolicyCall,
} from '../../core/approval-policy';
import { editedCallStep } from '../../core/edited-call';
import { defineAgent } from '../../agents/define-agent';
import { createAgentRegistry } from '../../agents/registry';
import { openInWorkspace } from '../../tools/open-in-workspace';
import { builtInTools } from '../../tools';
import { readFile } from '../../tools/read-file';
import { searchFiles } from '../../tools/search-files';

// docs/policy.md's coding agent: read freely, write under src/ and test/ freely, ask for other writes, never touch
// secrets, whatever the path looks like.
const coding: ApprovalPolicy = {
  rules: [
    { name: 'no-secrets', action: 'deny', paths: ['**/.env', 'secrets/**'], reason: 'secrets stay with people' },
    { name: 'read-only', action: 'allow', tools: ['read_file', 'list_directory', 'search_files'] },
    { name: 'write-src', action: 'allow', tools: ['write_file'], paths: ['src/**', 'test/**'] },
    { name: 'write-elsewhere', action: 'ask', tools: ['write_file'] },
  ],
  default: 'ask',
};

const workspace = '/srv/ws';
const call = (tool: string, args: Record<string, unknown>, extra: Partial<PolicyCall> = {}): PolicyCall => ({
  tool,
  args,
  paths: tool === 'search_files' || tool.endsWith('_file') || tool === 'list_directory' ? ['path'] : [],
  workspace,
  ...extra,
});

describe('an edited call, decided again', () => {
  // The coding policy with a rule that asks only of some paths: an edit onto them is asked again.
  const reviewed: ApprovalPolicy = {
    ...coding,
    rules: [
      coding.rules[0],
      { name: 'docs-review', action: 'ask', tools: ['write_file'], paths: ['docs/**'] },
      ...coding.rules.slice(1),
    ],
  };
  // The person approved the model's write to package.json (rule write-elsewhere), with arguments of their own.
  const answered = new Set(['write-elsewhere']);
  const edit = (path: string) => editedCallStep(evaluatePolicy(reviewed, call('write_file', { path, content: 'x' })), answered);

  it('refuses an edit onto a denied path, look-alikes included, naming the rule', () => {
    for (const hostile of [
      'docs/../.ENV',
      './src/../../ws/.env',
      '/srv/ws/.env',
      'ｓｅｃｒｅｔｓ/key',
      'SECRETS/key',
      'src/.Env',
    ])
      expect([hostile, edit(hostile)]).toEqual([
        hostile,
        { kind: 'refuse', decision: { action: 'deny', rule: 'no-secrets', reason: 'secrets stay with people' } },
      ]);
  });

  it('asks again when a rule the person has not answered asks of the edit, and not when it is the one they answered', () => {
    expect(edit('docs/NOTES.md')).toEqual({ kind: 'ask', rule: 'docs-review' });
    expect(edit('src/../docs/a.md')).toEqual({ kind: 'ask', rule: 'docs-review' });
    expect(edit('CHANGES.md')).toEqual({ kind: 'run' });
    expect(edit('src/a.ts')).toEqual({ kind: 'run' });
    // Once the person has answered docs-review too, their edit runs.
    const both = new Set(['write-elsewhere', 'docs-review']);
    expect(editedCallStep(evaluatePolicy(reviewed, call('write_file', { path: 'docs/x.md', content: '' })), both)).toEqual({
      kind: 'run',
    });
  });

  it('an edit that climbs out of an allowed directory is not allowed by it', () => {
    // src/../package.json is not under src/**: it falls to write-elsewhere, answered already; nothing lets it skip a refusal.
    expect(evaluatePolicy(reviewed, call('write_file', { path: 'src/../package.json', content: '' })).rule).toBe(
      'write-elsewhere',
    );
    expect(evaluatePolicy(reviewed, call('write_file', { path: 'src/../.env', content: '' })).rule).toBe('no-secrets');
  });
});

describe('evaluatePolicy', () => {
  it('decides by the first rule that matches, and names it', () => {
    expect(evaluatePolicy(coding, call('read_file', { path: 'README.md' }))).toEqual({ action: 'allow', rule: 'read-only' });
    expect(evaluatePolicy(coding, call('write_file', { path: 'src/a.ts', content: '' })).rule).toBe('write-src');
    expect(evaluatePolicy(coding, call('write_file', { path: 'package.json', content: '' }))).toEqual({
      action: 'ask',
      rule: 'write-elsewhere',
    });
    expect(evaluatePolicy(coding, call('run_tests', {}))).toEqual({ action: 'ask', rule: 'default' });
    expect(evaluatePolicy(undefined, call('run_tests', {}))).toEqual({ action: 'allow', rule: 'default' });
  });

  it('refuses look-alikes of a denied path: case, fullwidth letters, `..`, an absolute path into the workspace', () => {
    for (const hostile of [
      '.ENV',
      'src/../.env',
      './src/lib/../../.env',
      '/srv/ws/.env',
      'ｓｅｃｒｅｔｓ/key',
      'SECRETS/key',
      'a//b/./.env',
    ]) {
      expect(evaluatePolicy(coding, call('read_file', { path: hostile }))).toMatchObject({ action: 'deny', rule: 'no-secrets' });
    }
  });

  it('allows only the exact path a rule allows: not one that climbs out, nor a look-alike of it', () => {
    const write = (target: string) => evaluatePolicy(coding, call('write_file', { path: target, content: 'x' })).rule;
    expect(write('src/../package.json')).toBe('write-elsewhere');
    expect(write('src/../../etc/passwd')).toBe('write-elsewhere');
    expect(write('SRC/a.ts')).toBe('write-elsewhere');
    expect(write('/srv/ws/src/a.ts')).toBe('write-src');
    // A path not in NFC (e + combining acute) is a different name from the one the rule was written for.
    expect(write('src/cafe\u0301.ts')).toBe('write-elsewhere');
  });

  it('bounds numbers, matches text globs and exact values, and looks at the principal and the tenant', () => {
    const refunds: ApprovalPolicy = {
      rules: [
        { name: 'big-refund', action: 'ask', tools: ['refund'], args: { amount: { min: 100.01 } } },
        { name: 'refund', action: 'allow', tools: ['refund'], args: { amount: { min: 0, max: 100 } } },
        { name: 'vip', action: 'allow', tools: ['email'], args: { to: { glob: '*@example.com' } }, tenants: ['acme'] },
        { name: 'ops', action: 'allow', principals: ['hash-of-ops'] },
      ],
      default: 'deny',
    };
    expect(evaluatePolicy(refunds, call('refund', { amount: 500 })).rule).toBe('big-refund');
    expect(evaluatePolicy(refunds, call('refund', { amount: 20 })).rule).toBe('refund');
    // A number the model sends as text is no number: no bound matches it, and the default decides.
    expect(evaluatePolicy(refunds, call('refund', { amount: '20' })).action).toBe('deny');
    expect(evaluatePolicy(refunds, call('refund', { amount: -1 })).action).toBe('deny');
    expect(evaluatePolicy(refunds, call('email', { to: 'a@example.com' }, { tenant: 'acme' })).rule).toBe('vip');
    expect(evaluatePolicy(refunds, call('email', { to: 'a@example.com' }, { tenant: 'other' })).rule).toBe('default');
    expect(evaluatePolicy(refunds, call('email', { to: 'a@example.com.evil' }, { tenant: 'acme' })).rule).toBe('default');
    expect(evaluatePolicy(refunds, call('anything', {}, { principal: 'hash-of-ops' })).rule).toBe('ops');
  });

  it('puts the run’s rules before the agent’s, and the run’s default over the agent’s', () => {
    const run: ApprovalPolicy = { rules: [{ name: 'run-deny-writes', action: 'deny', tools: ['write_file'] }], default: 'deny' };
    const both = combinedPolicy(run, coding)!;
    expect(evaluatePolicy(both, call('write_file', { path: 'src/a.ts', content: '' })).rule).toBe('run-deny-writes');
    expect(both.default).toBe('deny');
    expect(combinedPolicy(undefined, coding)).toBe(coding);
  });
});

describe('globs', () => {
  it('match segments with ** and *, never across a slash with *', () => {
    expect(pathGlobMatches('src/**', 'src')).toBe(true);
    expect(pathGlobMatches('src/**', 'src/a/b.ts')).toBe(true);
    expect(pathGlobMatches('src/*.ts', 'src/a/b.ts')).toBe(false);
    expect(pathGlobMatches('**/*.key', 'a/b/c.key')).toBe(true);
    expect(pathGlobMatches('**/.env', '.env')).toBe(true);
    expect(textGlobMatches('mcp_*', 'mcp_github_issue')).toBe(true);
    expect(textGlobMatches('a?c', 'abbc')).toBe(false);
  });

  it('take time in proportion to the lengths, whatever the model sends', () => {
    const long = 'a'.repeat(20_000);
    expect(textGlobMatches('*a*a*a*a*a*a*a*a*b', long)).toBe(false);
    expect(pathGlobMatches('**/**/**/**/**/x', Array(2000).fill('a').join('/'))).toBe(false);
  });
});

describe('policyProblems', () => {
  const tools = builtInTools.map((tool) => ({
    name: tool.name,
    paths: ['path'],
    args: Object.keys((tool.input as never as { shape: object }).shape),
  }));

  it('refuses rules that can never match, and names them', () => {
    const problems = policyProblems(
      {
        rules: [
          { name: 'typo', action: 'deny', tools: ['wirte_file'] },
          { name: 'no-path', action: 'deny', tools: ['run_tests'], paths: ['x'] },
          { name: 'bounds', action: 'ask', tools: ['read_file'], args: { path: { min: 5, max: 1 } } },
          { name: 'no-arg', action: 'ask', tools: ['read_file'], args: { size: { glob: '*' } } },
          { name: 'all-writes', action: 'ask', tools: ['write_file'] },
          { name: 'write-src', action: 'allow', tools: ['write_file'], paths: ['src/**'] },
          { name: 'all-writes', action: 'deny' },
        ],
      },
      [...tools, { name: 'run_tests', paths: [], args: [] }],
    );
    expect(problems).toEqual([
      'rule 1 "typo": no tool of the agent is named "wirte_file"',
      'rule 2 "no-path": paths, but none of run_tests takes a path',
      'rule 3 "bounds": argument "path" has min above max',
      'rule 4 "no-arg": no argument "size" in read_file',
      'rule 6 "write-src": never reached, rule "all-writes" before it takes every call it would',
      'rule 7 "all-writes": another rule has the same name',
    ]);
    expect(policyProblems(coding, tools)).toEqual([]);
  });

  it('is checked when the agents are registered', () => {
    const agent = defineAgent({
      name: 'coder',
      description: 'writes code',
      model: 'anthropic:claude-sonnet-4-5',
      tools: ['read_file', 'write_file'],
      policy: { rules: [{ name: 'typo', action: 'deny', tools: ['wirte_file'] }] },
    });
    expect(() => createAgentRegistry({ agents: [agent] })).toThrow(
      'agent "coder": policy: rule 1 "typo": no tool of the agent is named "wirte_file"',
    );
    expect(() =>
      defineAgent({
        name: 'coder',
        description: 'writes code',
        model: 'anthropic:claude-sonnet-4-5',
        policy: { rules: [{ name: 'x', action: 'maybe' as 'ask' }] },
      }),
    ).toThrow('policy.rules.0.action: must be one of allow, ask, deny');
  });
});

describe('a symlink to a denied path', () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'policy-'));
    await mkdir(path.join(root, 'docs'));
    await writeFile(path.join(root, '.env'), 'API_KEY=secret\n');
    await writeFile(path.join(root, 'docs', 'notes.md'), 'API_KEY is documented here\n');
    await symlink('../.env', path.join(root, 'docs', 'notes-link.md'));
  });
  afterAll(() => rm(root, { recursive: true, force: true }));

  const denied = deniedPathsFor(coding, 'read_file');
  const signal = new AbortController().signal;

  it('passes the workflow’s check, and is refused by the tool at open time, naming the rule', async () => {
    expect(evaluatePolicy(coding, { ...call('read_file', { path: 'docs/notes-link.md' }), workspace: root }).rule).toBe(
      'read-only',
    );
    await expect(
      readFile.handler({ path: 'docs/notes-link.md' }, { workspace: root, signal, deniedPaths: denied }),
    ).rejects.toThrow(
      `path "docs/notes-link.md" is refused by the approval policy's rule "no-secrets": secrets stay with people`,
    );
    // Without the policy the link is an ordinary file inside the workspace.
    await expect(readFile.handler({ path: 'docs/notes-link.md' }, { workspace: root, signal })).resolves.toContain('secret');
    await expect(openInWorkspace(root, 'docs/notes.md', 'file', denied).then((opened) => opened.handle.close())).resolves.toBe(
      undefined,
    );
  });

  it('is skipped by search_files’s walk, which still searches the rest', async () => {
    const found = await searchFiles.handler(
      { pattern: 'API_KEY' },
      { workspace: root, signal, deniedPaths: deniedPathsFor(coding, 'search_files') },
    );
    expect(found).toContain('docs/notes.md');
    expect(found).not.toContain('secret');
    expect(found).toContain('paths the approval policy refuses');
  });
});
