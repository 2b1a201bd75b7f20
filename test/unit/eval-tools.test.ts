import { builtInTools } from '../../tools';
import { builtInWorkspaceTools, canonicalJson, fixtureFor } from '../../core/eval-tools';
import { evalToolAnswer } from '../../workflows/eval-tool-gate';
import type { ToolFixture } from '../../core/eval-types';

// The pure rules of an eval's tool calls: canonical arguments, which fixture answers, what is refused.

it('keeps the list of built-in workspace tools equal to the tools the registry always has', () => {
  expect([...builtInWorkspaceTools].sort()).toEqual(builtInTools.map((tool) => tool.name).sort());
});

it('writes arguments as canonical JSON: keys sorted at every depth, no spaces, __proto__ kept as a key', () => {
  expect(canonicalJson(JSON.parse('{ "b": [ {"y": 1, "x": "é"} ], "a": null }'))).toBe('{"a":null,"b":[{"x":"é","y":1}]}');
  expect(canonicalJson(JSON.parse('{"__proto__": {"polluted": true}, "a": 1}'))).toBe('{"__proto__":{"polluted":true},"a":1}');
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  expect(canonicalJson('text')).toBe('"text"');
});

const fixture: ToolFixture = { tool: 'read_file', arguments: '{"path":"a.txt"}', content: 'recorded', isError: false };
const tool = { kind: 'tool' } as const;
const settings = { timeout: '1s', maximumAttempts: 1, initialRetryInterval: '1s' } as const;

it('answers a call with the same tool and canonical arguments from its fixture, whatever the key order', () => {
  expect(fixtureFor([fixture], 'read_file', { path: 'a.txt' })).toBe(fixture);
  expect(fixtureFor([fixture], 'read_file', { path: 'b.txt' })).toBeUndefined();
  expect(fixtureFor([fixture], 'list_directory', { path: 'a.txt' })).toBeUndefined();
  const call = { id: 'c1', name: 'read_file', arguments: '{ "path" : "a.txt" }' };
  expect(evalToolAnswer({ fixtures: [fixture], unrecorded: 'refuse' }, call, { path: 'a.txt' }, tool, settings)).toMatchObject({
    content: 'recorded',
    isError: false,
    label: '(recorded)',
  });
});

it('runs unrecorded workspace tools only with scratch, and refuses other tools and MCP tools in either mode', () => {
  const write = { id: 'c2', name: 'write_file', arguments: '{"path":"n.txt","content":"x"}' };
  const args = { path: 'n.txt', content: 'x' };
  expect(evalToolAnswer({ fixtures: [], unrecorded: 'scratch' }, write, args, tool, settings)).toBeUndefined();
  expect(evalToolAnswer({ fixtures: [], unrecorded: 'refuse' }, write, args, tool, settings)).toMatchObject({
    isError: true,
    label: '(refused by eval)',
  });
  const own = { id: 'c3', name: 'send_email', arguments: '{}' };
  expect(evalToolAnswer({ fixtures: [], unrecorded: 'scratch' }, own, {}, tool, settings)?.content).toMatch(/eval refused/);
  const mcp = { ...settings, mcp: { server: 'files', tool: 'file' } };
  expect(evalToolAnswer({ fixtures: [], unrecorded: 'scratch' }, write, args, tool, mcp)?.isError).toBe(true);
  // A subagent runs as a child with the same evalTools; a fixture answers it like any call.
  const subagent = { kind: 'subagent', agent: 'helper' } as const;
  expect(evalToolAnswer({ fixtures: [], unrecorded: 'refuse' }, own, {}, subagent, undefined)).toBeUndefined();
});
