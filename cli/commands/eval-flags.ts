import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Candidate, GraderSpec } from '../../core/eval-types';
import { UsageError } from '../help';
import { invocationDirectory } from '../output';
import { modelSettingsFromFlags, type ModelSettingFlag } from './agent-flags';

/**
 * `--candidate 'NAME: key=value; key=value'`: a candidate and its overrides, `;` between them (so a tool list keeps
 * its commas). Keys: agent, model, instructions, instructions-file, tools (a,b), and the model settings of `agent run`
 * (temperature, max-output-tokens, thinking-budget, reasoning-effort, prompt-cache). `--candidate NAME` alone is the
 * agent as it is. Values are read as written: an instruction with a `;` goes in a file.
 */
export function parseCandidate(text: string, defaults: { agent?: string }): Candidate {
  const colon = text.indexOf(':');
  const name = (colon < 0 ? text : text.slice(0, colon)).trim();
  if (!name) throw new UsageError(`--candidate ${JSON.stringify(text)}: give it a name first (NAME: model=…; tools=…)`);
  const candidate: Candidate = { name, ...(defaults.agent !== undefined && { agent: defaults.agent }) };
  const settings: Partial<Record<ModelSettingFlag, string>> = {};
  const body = colon < 0 ? '' : text.slice(colon + 1);
  for (const part of body.split(';')) {
    if (!part.trim()) continue;
    const equals = part.indexOf('=');
    if (equals < 0) throw new UsageError(`--candidate ${name}: "${part.trim()}" is not key=value`);
    const key = part.slice(0, equals).trim();
    const value = part.slice(equals + 1).trim();
    switch (key) {
      case 'agent':
        candidate.agent = value;
        break;
      case 'model':
        candidate.model = value;
        break;
      case 'instructions':
        candidate.instructions = value;
        break;
      case 'instructions-file':
        candidate.instructions = readText(value, `--candidate ${name}: instructions-file`);
        break;
      case 'tools':
        candidate.tools = value ? value.split(',').map((tool) => tool.trim()) : [];
        break;
      case 'temperature':
      case 'max-output-tokens':
      case 'thinking-budget':
      case 'reasoning-effort':
      case 'prompt-cache':
        settings[key] = value;
        break;
      default:
        throw new UsageError(
          `--candidate ${name}: unknown key "${key}" (agent, model, instructions, instructions-file, tools, temperature, ` +
            'max-output-tokens, thinking-budget, reasoning-effort, prompt-cache)',
        );
    }
  }
  const modelSettings = modelSettingsFromFlags(settings);
  return modelSettings ? { ...candidate, modelSettings } : candidate;
}

/**
 * `--grader TYPE:VALUE` for the common graders, or the grader's JSON (core/eval-types.ts's GraderSpec):
 * `contains:refund`, `equals:Yes`, `regex:^ok`, `output-schema`, `tools-only:read_file,search_files`,
 * `max-cost-usd:0.01`, `max-iterations:5`, `max-tool-calls:3`, `custom:NAME`, `{"type":"tool-calls",…}`.
 */
export function parseGrader(text: string): GraderSpec {
  if (text.trim().startsWith('{')) {
    try {
      return JSON.parse(text) as GraderSpec;
    } catch (error) {
      throw new UsageError(`--grader: not JSON: ${(error as Error).message}`);
    }
  }
  const colon = text.indexOf(':');
  const type = colon < 0 ? text : text.slice(0, colon);
  const value = colon < 0 ? '' : text.slice(colon + 1);
  const number = () => {
    const parsed = Number(value);
    if (!value || !Number.isFinite(parsed) || parsed < 0) throw new UsageError(`--grader ${type}: a number, got "${value}"`);
    return parsed;
  };
  switch (type) {
    case 'contains':
    case 'equals':
      return { type, value };
    case 'regex':
      return { type, pattern: value };
    case 'output-schema':
      return { type };
    case 'tools-only':
      return { type: 'tool-calls', only: value ? value.split(',').map((tool) => tool.trim()) : [] };
    case 'max-cost-usd':
      return { type: 'bounds', maxCostUsd: number() };
    case 'max-iterations':
      return { type: 'bounds', maxIterations: number() };
    case 'max-tool-calls':
      return { type: 'bounds', maxToolCalls: number() };
    case 'custom':
      return { type, name: value };
    default:
      throw new UsageError(
        `--grader: unknown grader "${type}" (contains, equals, regex, output-schema, tools-only, max-cost-usd, ` +
          'max-iterations, max-tool-calls, custom, or the JSON of one)',
      );
  }
}

/** An eval's config file (`--config eval.json`): candidates and graders, and settings the flags may override. */
export interface EvalConfigFile {
  candidates?: Candidate[];
  graders?: GraderSpec[];
  concurrency?: number;
  repeat?: number;
  budgetUsd?: number;
  batch?: boolean;
  tools?: 'scratch' | 'refuse';
}

export function readConfigFile(file: string): EvalConfigFile {
  const text = readText(file, '--config');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--config ${file}: not JSON: ${(error as Error).message}`);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new UsageError(`--config ${file}: not a JSON object`);
  const known = new Set(['candidates', 'graders', 'concurrency', 'repeat', 'budgetUsd', 'batch', 'tools']);
  const unknown = Object.keys(parsed).filter((key) => !known.has(key));
  if (unknown.length > 0)
    throw new UsageError(`--config ${file}: unknown fields ${unknown.join(', ')} (known: ${[...known].join(', ')})`);
  return parsed as EvalConfigFile;
}

function readText(file: string, flag: string): string {
  try {
    return readFileSync(path.resolve(invocationDirectory(), file), 'utf8');
  } catch (error) {
    throw new UsageError(`${flag}: cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}
