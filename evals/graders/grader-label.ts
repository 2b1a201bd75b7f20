import type { GraderSpec } from '../../core/eval-types';
import { quoted } from './grade-result';

/** How a grader is named in the report and the terminal table: short, and enough to tell two of a kind apart. */
export function graderLabel(spec: GraderSpec): string {
  switch (spec.type) {
    case 'equals':
    case 'contains':
      return `${spec.type} ${quoted(spec.value, 40)}${spec.ignoreCase ? ' (any case)' : ''}`;
    case 'regex':
      return `regex /${cut(spec.pattern, 40)}/${spec.flags ?? ''}`;
    case 'output-schema':
      return spec.schema ? 'output-schema (given schema)' : "output-schema (agent's)";
    case 'tool-calls': {
      const parts = [
        ...(spec.calls?.length ? [`calls ${spec.calls.map((call) => call.name).join(', ')}`] : []),
        ...(spec.only ? [`only ${spec.only.join(', ') || 'none'}`] : []),
      ];
      return `tool-calls: ${cut(parts.join('; '), 60)}`;
    }
    case 'bounds': {
      const parts = [
        ...(spec.maxCostUsd !== undefined ? [`cost ≤ $${spec.maxCostUsd}`] : []),
        ...(spec.maxIterations !== undefined ? [`iterations ≤ ${spec.maxIterations}`] : []),
        ...(spec.maxToolCalls !== undefined ? [`tool calls ≤ ${spec.maxToolCalls}`] : []),
      ];
      return `bounds: ${parts.join(', ')}`;
    }
    case 'judge':
      return `judge: ${cut(spec.rubric.trim().split(/\s+/).slice(0, 8).join(' '), 50)}`;
    case 'custom':
      return spec.name;
    default: {
      const _exhaustive: never = spec;
      return String(_exhaustive);
    }
  }
}

function cut(text: string, max: number): string {
  const characters = [...text];
  return characters.length > max ? `${characters.slice(0, max).join('')}…` : text;
}
