import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import * as library from '../../index';
import * as workflowLibrary from '../../workflow';
import { AgentError } from '../../core/errors';

// One error base class covers every error the library throws (issue 20): a caller catches AgentError and knows the
// failure came from durable-agent, and each subclass keeps its own name. The CLI's own (UsageError) is held to it too.

const root = path.join(__dirname, '..', '..');
const libraryFolders = [
  'agents',
  'activities',
  'cli',
  'client',
  'core',
  'evals',
  'mcp',
  'providers',
  'schedules',
  // The MCP server; serve/http/'s ChatRequestError, like web/'s errors, is durable-agent/web's and stays apart.
  'serve/mcp',
  'storage',
  'telemetry',
  'tools',
  'worker',
  'workflows',
];

async function sourceFiles(folder: string): Promise<string[]> {
  const entries = await readdir(path.join(root, folder), { withFileTypes: true, recursive: true }).catch(() => []);
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts'))
    .map((entry) => path.join(entry.parentPath, entry.name));
}

function isErrorClass(value: unknown): value is new (...args: never[]) => Error {
  return typeof value === 'function' && value.prototype instanceof Error;
}

describe('error classes', () => {
  it('every error class declared in the library extends AgentError and keeps its own name', async () => {
    const files = (await Promise.all(libraryFolders.map(sourceFiles))).flat();
    const declared: string[] = [];
    for (const file of files) {
      const names = [...(await readFile(file, 'utf8')).matchAll(/^export class (\w+) extends \w+/gm)].map((match) => match[1]);
      if (names.length === 0) continue;
      const module = (await import(file)) as Record<string, unknown>;
      for (const name of names) {
        const value = module[name];
        if (!isErrorClass(value)) continue;
        declared.push(name);
        expect({ name, extendsAgentError: value.prototype instanceof AgentError || value === AgentError }).toEqual({
          name,
          extendsAgentError: true,
        });
        // AgentError names each instance after its class, as the classes that set their name by hand did.
        expect(new (value as unknown as new (message: string) => Error)('m').name).toBe(name);
      }
    }
    // The ones issue 20 found extending Error, and the base's own family.
    expect(declared).toEqual(
      expect.arrayContaining([
        'AgentError',
        'ConfigurationError',
        'ToolInputError',
        'MessageNotAnsweredError',
        'InvalidInputError',
        'UsageError',
      ]),
    );
  });

  it('every error class the packages export extends AgentError', () => {
    const exported = Object.entries({ ...library, ...workflowLibrary } as Record<string, unknown>).flatMap(([name, value]) =>
      isErrorClass(value) ? [[name, value] as const] : [],
    );
    expect(exported.map(([name]) => name).sort()).toEqual(
      [
        'AgentError',
        'AttachmentNotAcceptedError',
        'AttachmentRefusedError',
        'ConfigurationError',
        'EventRefusedError',
        'InvalidInputError',
        'MessageNotAnsweredError',
        'ScheduleBoundError',
        'ToolInputError',
        'WorkspaceRefusal',
      ].sort(),
    );
    for (const [name, value] of exported)
      expect({ name, extendsAgentError: value === AgentError || value.prototype instanceof AgentError }).toEqual({
        name,
        extendsAgentError: true,
      });
  });

  it('keeps instanceof working through the base: a refused message is an AgentError and a MessageNotAnsweredError', () => {
    const refusal = new library.MessageNotAnsweredError('the session ended', 'MessageRefused');
    expect(refusal).toBeInstanceOf(library.MessageNotAnsweredError);
    expect(refusal).toBeInstanceOf(AgentError);
    expect(refusal).toBeInstanceOf(Error);
    expect(refusal.refused).toBe(true);
    expect(refusal.name).toBe('MessageNotAnsweredError');
    expect(String(new library.InvalidInputError('invalid input: prompt: required'))).toBe(
      'InvalidInputError: invalid input: prompt: required',
    );
  });
});
