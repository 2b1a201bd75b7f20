import os from 'node:os';
import { ApplicationFailure } from '@temporalio/common';
import { resolveMcpReferences } from '../../activities/mcp/list-tools-activity';
import { createPrepareRun } from '../../activities/prepare-run';
import { defineAgent } from '../../agents/define-agent';
import { createAgentRegistry } from '../../agents/registry';
import { buildListing } from '../../mcp/listing';
import { configurationProblem } from '../support/configuration-problem';

// The names of the tools that need approval (--approve-tools, an agent's approveTools) are checked and expanded
// like a tools list: an unknown name, which would approve nothing, is refused; `mcp:<server>` and `mcp:*` stand for
// the same tools as in a tools list.

const base = { description: 'Test agent.', model: 'openai:gpt-4o-mini' };
const mcpServers = { calc: { command: 'calc-server' }, probe: { command: 'probe-server' } };
const builtIns = 'registered tools: read_file, write_file, list_directory, search_files';

describe("an agent's approveTools", () => {
  it('refuses a name the worker does not know when the agents are registered, matching case exactly and naming what there is', () => {
    const refused = configurationProblem(() =>
      createAgentRegistry({
        agents: [defineAgent({ name: 'careless', ...base, tools: ['write_file'], approveTools: ['Write_File'] })],
      }),
    );
    expect(refused).toBe(
      `agent "careless": approveTools names unknown tools: Write_File (did you mean write_file?) (${builtIns}; agents: default, careless)`,
    );
    expect(
      configurationProblem(() =>
        createAgentRegistry({ agents: [defineAgent({ name: 'a', ...base, approveTools: ['mcp:probe'] })] }),
      ),
    ).toMatch(/^agent "a": approveTools names unknown tools: mcp:probe \(registered tools: /);
  });

  it('accepts tools, MCP selectors of configured servers and subagents, and records them in the agent spec', () => {
    const registry = createAgentRegistry({
      mcpServers,
      agents: [
        defineAgent({
          name: 'careful',
          ...base,
          tools: ['write_file', 'mcp:*'],
          approveTools: ['write_file', 'mcp:probe', 'calc_add', 'default'],
        }),
      ],
    });
    expect(registry.spec('careful').approveTools).toEqual(['write_file', 'mcp:probe', 'calc_add', 'default']);
    expect(registry.spec('default').approveTools).toBeUndefined();
  });

  it('refuses what is not a list of names when the agent is defined', () => {
    expect(configurationProblem(() => defineAgent({ name: 'a', ...base, approveTools: [''] }))).toBe(
      'agent "a": approveTools must be a list of tool names',
    );
  });
});

describe("the run's --approve-tools in prepareRun", () => {
  const registry = createAgentRegistry({
    mcpServers,
    agents: [
      defineAgent({
        name: 'writer',
        ...base,
        tools: ['write_file', 'mcp:calc'],
        approveTools: ['calc_add'],
        handoffs: ['editor'],
      }),
      defineAgent({ name: 'editor', ...base, tools: ['read_file'] }),
    ],
  });
  const prepareRun = createPrepareRun(registry, os.tmpdir(), {});

  it('fails the run on an unknown name, before any model call, listing what the worker has', async () => {
    const failure = await prepareRun({
      agent: 'writer',
      overrides: {},
      workspace: os.tmpdir(),
      approveTools: ['Write_File', 'mcp:nothere'],
    }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure).toMatchObject({
      type: 'AgentConfigurationError',
      nonRetryable: true,
      message: `unknown tools to approve: Write_File (did you mean write_file?), mcp:nothere; this worker has: ${builtIns}; MCP servers: calc, probe (tools named <server>_<tool>, or mcp:<server>, mcp:*)`,
    });
  });

  it("adds the run's names to every agent's own, and sets the MCP ones aside for the listing to expand", async () => {
    const setup = await prepareRun({
      agent: 'writer',
      overrides: {},
      workspace: os.tmpdir(),
      approveTools: ['write_file', 'mcp:*'],
    });
    expect(setup.agents.writer.approveTools).toEqual(['write_file']);
    expect(setup.agents.editor.approveTools).toEqual(['write_file']);
    expect(setup.mcpTools).toEqual({
      servers: ['calc'],
      references: { writer: ['mcp:calc'] },
      approvals: { writer: ['calc_add', 'mcp:*'], editor: ['mcp:*'] },
    });
  });
});

describe('resolveMcpReferences for approvals', () => {
  const registry = createAgentRegistry({ mcpServers });
  const tool = (name: string) => ({ name, inputSchema: { type: 'object' as const } });
  const listing = buildListing(
    { calc: { tools: [tool('add'), tool('fail')] }, probe: { unavailable: 'MCP server "probe" is unavailable: ECONNREFUSED' } },
    () => undefined,
  );
  const approvals = (references: string[]) =>
    resolveMcpReferences(references, listing, registry, { purpose: 'approvals', listed: ['calc', 'probe'] });

  it('expands mcp:* and mcp:<server> to the tool names the model calls, exactly as for a tools list', () => {
    expect(approvals(['mcp:*'])).toEqual(resolveMcpReferences(['mcp:*'], listing, registry, { purpose: 'tools' }));
    expect(approvals(['mcp:*'])).toEqual(['calc_add', 'calc_fail']);
    expect(approvals(['mcp:calc', 'calc_add'])).toEqual(['calc_add', 'calc_fail']);
  });

  it('has nothing to approve on a server that is down or was not listed, where a tools list would fail', () => {
    expect(approvals(['mcp:probe', 'probe_scan'])).toEqual([]);
    const probeOnly = buildListing({ probe: { tools: [tool('scan')] } }, () => undefined);
    expect(
      resolveMcpReferences(['calc_add', 'mcp:calc'], probeOnly, registry, { purpose: 'approvals', listed: ['probe'] }),
    ).toEqual([]);
    expect(() => resolveMcpReferences(['mcp:probe'], listing, registry, { purpose: 'tools' })).toThrow(
      /the run names mcp:probe, and MCP server "probe" is unavailable/,
    );
  });

  it('refuses a tool a listed server does not have, case included', () => {
    expect(() => approvals(['calc_Add'])).toThrow(
      'unknown MCP tool "calc_Add" (did you mean calc_add?) among the tools that need approval; "calc" offer: calc_add, calc_fail',
    );
  });
});
