import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { z } from 'zod';
import { toolActivity } from '../../activities/tool-activity';
import { ConfigurationError, ToolInputError } from '../../core/errors';
import { maxToolOutputChars } from '../../core/limits';
import { defineTool, toolJsonSchema, type Tool } from '../../tools/define-tool';
import { testWorkspaceRoot } from '../support/temporal';

// The tools under test never touch it; it only has to lie inside the worker's workspace root.
const workspace = testWorkspaceRoot;

// The mock environment logs every failed attempt; these tests fail attempts on purpose.
function runInActivity(tool: Tool, args: unknown): Promise<string> {
  const environment = new MockActivityEnvironment(undefined, { logger: new DefaultLogger('ERROR') });
  return environment
    .run(toolActivity(tool, testWorkspaceRoot), { arguments: args, workspace })
    .then((output) => output as string);
}

function recordingTool(
  respond: (input: { path: string; count: number }) => Promise<string> = async ({ path }) => `read ${path}`,
) {
  const calls: unknown[] = [];
  const tool = defineTool({
    name: 'recorder',
    description: 'Records its calls',
    input: z.object({ path: z.string().describe('the path'), count: z.number().int().min(1).default(1) }),
    handler: async (input) => {
      calls.push(input);
      return respond(input);
    },
  });
  return { tool, calls };
}

async function failureOf(promise: Promise<unknown>): Promise<ApplicationFailure> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof ApplicationFailure)) throw new Error(`expected an ApplicationFailure, got ${String(error)}`);
  return error;
}

describe('toolActivity argument validation', () => {
  it('refuses a wrongly typed field before the handler runs, naming the field', async () => {
    const { tool, calls } = recordingTool();
    // Outside an activity context: validation must fail before Context.current() is reached.
    const failure = await failureOf(toolActivity(tool, testWorkspaceRoot)({ arguments: { path: 3 }, workspace }));
    expect(failure.type).toBe('InvalidToolArguments');
    expect(failure.nonRetryable).toBe(true);
    expect(failure.message).toBe(
      'invalid arguments for recorder: ✖ Invalid input: expected string, received number\n  → at path',
    );
    expect(calls).toEqual([]);
  });

  it('names a field that breaks a bound', async () => {
    const { tool, calls } = recordingTool();
    const failure = await failureOf(toolActivity(tool, testWorkspaceRoot)({ arguments: { path: 'a.txt', count: 0 }, workspace }));
    expect(failure.message).toBe('invalid arguments for recorder: ✖ Too small: expected number to be >=1\n  → at count');
    expect(calls).toEqual([]);
  });

  it('refuses arguments that are not an object', async () => {
    const { tool } = recordingTool();
    const failure = await failureOf(toolActivity(tool, testWorkspaceRoot)({ arguments: 'a.txt', workspace }));
    expect(failure.type).toBe('InvalidToolArguments');
    expect(failure.message).toBe('invalid arguments for recorder: ✖ Invalid input: expected object, received string');
  });
});

describe('toolActivity execution', () => {
  it('passes parsed arguments, with defaults, to the handler and returns its output', async () => {
    const { tool, calls } = recordingTool();
    const output = await runInActivity(tool, { path: 'a.txt' });
    expect(output).toBe('read a.txt');
    expect(calls).toEqual([{ path: 'a.txt', count: 1 }]);
  });

  it('turns a ToolInputError into a non-retryable ToolRefused failure', async () => {
    const { tool } = recordingTool(async () => {
      throw new ToolInputError('file "a.txt" does not exist');
    });
    const failure = await failureOf(runInActivity(tool, { path: 'a.txt' }));
    expect(failure.type).toBe('ToolRefused');
    expect(failure.nonRetryable).toBe(true);
    expect(failure.message).toBe('file "a.txt" does not exist');
  });

  it('lets other errors through unchanged so Temporal retries them', async () => {
    const disk = new Error('EIO: disk on fire');
    const { tool } = recordingTool(async () => {
      throw disk;
    });
    await expect(runInActivity(tool, { path: 'a.txt' })).rejects.toBe(disk);
  });

  it('truncates output longer than maxToolOutputChars with a marker', async () => {
    const long = 'x'.repeat(maxToolOutputChars + 10);
    const { tool } = recordingTool(async () => long);
    const output = await runInActivity(tool, { path: 'a.txt' });
    const marker = `\n[output truncated: showing ${maxToolOutputChars} of ${maxToolOutputChars + 10} characters]`;
    expect(output).toHaveLength(maxToolOutputChars);
    expect(output).toBe('x'.repeat(maxToolOutputChars - marker.length) + marker);
  });

  it('returns output of exactly maxToolOutputChars untouched', async () => {
    const exact = 'y'.repeat(maxToolOutputChars);
    const { tool } = recordingTool(async () => exact);
    expect(await runInActivity(tool, { path: 'a.txt' })).toBe(exact);
  });
});

describe('defineTool', () => {
  const valid = { description: 'Does a thing', input: z.object({}), handler: async () => 'ok' };

  it.each(['has space', 'dots.not.allowed', '', 'x'.repeat(65)])('refuses the name %p', (name) => {
    expect(() => defineTool({ ...valid, name })).toThrow(ConfigurationError);
  });

  it('refuses a blank description', () => {
    expect(() => defineTool({ ...valid, name: 'thing', description: '   ' })).toThrow(
      new ConfigurationError('tool "thing" needs a description: the model chooses tools by it'),
    );
  });

  it.each([0, -1, 1.5])('refuses maximumAttempts %p', (maximumAttempts) => {
    expect(() => defineTool({ ...valid, name: 'thing', activity: { maximumAttempts } })).toThrow(
      new ConfigurationError('tool "thing": maximumAttempts must be a positive integer'),
    );
  });

  it('fills in default activity settings under explicit ones', () => {
    expect(defineTool({ ...valid, name: 'thing', activity: { timeout: '5s' } }).activity).toEqual({
      timeout: '5s',
      maximumAttempts: 3,
      initialRetryInterval: '1s',
    });
  });
});

describe('toolJsonSchema', () => {
  it('describes the input the model may send, without a $schema key', () => {
    const { tool } = recordingTool();
    expect(toolJsonSchema(tool)).toEqual({
      type: 'object',
      properties: {
        path: { type: 'string', description: 'the path' },
        count: { type: 'integer', default: 1, minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
      },
      required: ['path'],
    });
  });
});
