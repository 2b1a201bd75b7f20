import type { ApprovalPolicy, PolicyAction, PolicyArgumentCondition, PolicyRule } from './agent-spec';
import { isRecord } from './is-record';
import { workspaceRelativePath } from './workspace-path';

/**
 * What may run without a person, what waits for one, and what never runs: an agent's approval policy (defineAgent's
 * `policy`), with the run's own rules (the operator's, `--policy`) before it, evaluated in the workflow for every
 * call before anything is scheduled. The model never chooses a policy: it only sends arguments, and they are what
 * the rules look at.
 *
 * Pure data and pure evaluation, no Node built-ins: the workflow evaluates it deterministically, and the registry and
 * prepareRun check it with the same code (policyProblems). The shape is declared once, as a zod schema, in
 * core/agent-spec.ts.
 *
 * Paths are matched in the form the tools open them: resolved against the workspace with `.` and `..` applied
 * (core/workspace-path.ts, as tools/workspace.ts does before it opens anything), relative to it. A rule that refuses
 * or asks matches look-alikes too (letters of any case, compatibility forms of Unicode such as fullwidth letters,
 * and any of the call's path arguments); a rule that allows matches only when every path argument matches exactly
 * and stays inside the workspace. A symlink is only known when the tool opens the path: the tool checks the real
 * path it opened against the refusing rules again (tools/open-in-workspace.ts, `deniedPaths`).
 */

/** What one call's evaluation came to, and the rule that decided it (`default` when no rule matched). */
export interface PolicyDecision {
  action: PolicyAction;
  rule: string;
  /** The deciding rule's reason, said to the model on a refusal. */
  reason?: string;
}

/** What a rule looks at: the call, and who it runs for. */
export interface PolicyCall {
  tool: string;
  /** The parsed arguments. */
  args: unknown;
  /** The names of the tool's path arguments (tools/path-argument.ts). */
  paths: readonly string[];
  workspace?: string;
  /** The run's owner as recorded (the hash in its memo, serve/http/run-owner.ts), when it has one. */
  principal?: string;
  /** The run's tenant (its fairness key), when it has one. */
  tenant?: string;
}

/**
 * The memo field that records a run's owner (serve/http/run-owner.ts writes it): a hash of the principal, so a rule's
 * `principals`, as the run records them, are those hashes too (prepareRun hashes the names a policy gives).
 */
export const runOwnerMemoField = 'webOwner';

/** The rule name of a decision no rule made. */
export const defaultRuleName = 'default';

/**
 * The names of the default policy's own rules (workflows/round-ledger.ts): a call no rule matches asks when its
 * tool's `needsApproval` or the `approveTools` list says so, and goes by the default otherwise. No rule may take them.
 */
export const builtInRuleNames: readonly string[] = [defaultRuleName, 'needsApproval', 'approveTools'];

/** Whether `rule` names one of a policy's own rules, rather than the default policy's. */
export function isPolicyRule(rule: string | undefined): rule is string {
  return rule !== undefined && !builtInRuleNames.includes(rule);
}

/** The first rule that matches `call`, or the policy's default (`allow` when it has none). */
export function evaluatePolicy(policy: ApprovalPolicy | undefined, call: PolicyCall): PolicyDecision {
  for (const rule of policy?.rules ?? []) {
    if (ruleMatches(rule, call))
      return { action: rule.action, rule: rule.name, ...(rule.reason !== undefined && { reason: rule.reason }) };
  }
  return { action: policy?.default ?? 'allow', rule: defaultRuleName };
}

/** The run's rules first, then the agent's; the run's default, else the agent's. Either may be absent. */
export function combinedPolicy(run: ApprovalPolicy | undefined, agent: ApprovalPolicy | undefined): ApprovalPolicy | undefined {
  if (!run) return agent;
  if (!agent) return run;
  const fallback = run.default ?? agent.default;
  return { rules: [...run.rules, ...agent.rules], ...(fallback !== undefined && { default: fallback }) };
}

/** A path rule of refusal, as the tool activity re-checks it against what it really opened. */
export interface DeniedPaths {
  rule: string;
  globs: string[];
  reason?: string;
}

/**
 * The refusing path rules that could apply to calls of `tool`, for the tool to check against the real path it opens.
 * A rule with conditions besides the tool and the paths is left out: those are checked before the call is scheduled.
 */
export function deniedPathsFor(policy: ApprovalPolicy | undefined, tool: string): DeniedPaths[] {
  return (policy?.rules ?? []).flatMap((rule) =>
    rule.action === 'deny' && rule.paths && toolMatches(rule, tool) && !rule.args && !rule.principals && !rule.tenants
      ? [{ rule: rule.name, globs: rule.paths, ...(rule.reason !== undefined && { reason: rule.reason }) }]
      : [],
  );
}

/** The refusal among `denied` whose globs match `relative` (a path relative to the workspace's real path), if any. */
export function deniedPath(denied: readonly DeniedPaths[] | undefined, relative: string): DeniedPaths | undefined {
  const folded = fold(relative);
  return denied?.find((entry) => entry.globs.some((glob) => pathGlobMatches(fold(glob), folded)));
}

function ruleMatches(rule: PolicyRule, call: PolicyCall): boolean {
  if (!toolMatches(rule, call.tool)) return false;
  if (rule.principals && (call.principal === undefined || !rule.principals.includes(call.principal))) return false;
  if (rule.tenants && (call.tenant === undefined || !rule.tenants.includes(call.tenant))) return false;
  const args = isRecord(call.args) ? call.args : {};
  for (const [name, condition] of Object.entries(rule.args ?? {})) {
    if (!Object.hasOwn(args, name) || !argumentMatches(condition, args[name])) return false;
  }
  if (rule.paths) return pathsMatch(rule, call, args);
  return true;
}

function toolMatches(rule: PolicyRule, tool: string): boolean {
  return !rule.tools || rule.tools.some((pattern) => textGlobMatches(pattern, tool));
}

/**
 * Refusing and asking: any path argument that matches, look-alikes folded. Allowing: every path argument, as
 * written after resolution, inside the workspace. A call with no path argument matches no path rule.
 */
function pathsMatch(rule: PolicyRule, call: PolicyCall, args: Record<string, unknown>): boolean {
  const given = call.paths.filter((name) => Object.hasOwn(args, name) && typeof args[name] === 'string');
  if (given.length === 0) return false;
  const resolved = given.map((name) => workspaceRelativePath(args[name] as string, call.workspace));
  if (rule.action !== 'allow')
    return resolved.some((path) => rule.paths!.some((glob) => pathGlobMatches(fold(glob), fold(path))));
  return resolved.every(
    (path) => !leavesWorkspace(path) && path.normalize('NFC') === path && rule.paths!.some((glob) => pathGlobMatches(glob, path)),
  );
}

function argumentMatches(condition: PolicyArgumentCondition, value: unknown): boolean {
  if ('equals' in condition) return value === condition.equals;
  if ('glob' in condition) return typeof value === 'string' && textGlobMatches(condition.glob, value);
  if (typeof value !== 'number' || !Number.isFinite(value)) return false;
  return (condition.min === undefined || value >= condition.min) && (condition.max === undefined || value <= condition.max);
}

function leavesWorkspace(path: string): boolean {
  return path.startsWith('/') || path === '..' || path.startsWith('../');
}

/** A path as a look-alike reads: compatibility forms composed (fullwidth `ｅｎｖ` is `env`), any case. */
function fold(path: string): string {
  return path.normalize('NFKC').toLowerCase();
}

/**
 * A glob over `/`-separated paths: `**` as a whole segment is any number of segments (none too), `*` any characters
 * within a segment, `?` one. A trailing `/**` also matches the directory itself. No regular expression: the path is
 * the model's, and this runs in the workflow.
 */
export function pathGlobMatches(glob: string, path: string): boolean {
  const pattern = glob.split('/').filter((part) => part !== '' && part !== '.');
  const parts = path === '.' ? [] : path.split('/').filter((part) => part !== '');
  // reachable[j]: the first i pattern segments can match the first j path segments.
  let reachable = parts.map(() => false).concat(false);
  reachable[0] = true;
  for (const segment of pattern) {
    const next = reachable.map(() => false);
    for (let j = 0; j <= parts.length; j++) {
      if (!reachable[j]) continue;
      if (segment === '**') for (let k = j; k <= parts.length; k++) next[k] = true;
      else if (j < parts.length && segmentMatches(segment, parts[j])) next[j + 1] = true;
    }
    reachable = next;
  }
  return reachable[parts.length];
}

/** A glob over a whole string (a tool name, a text argument): `*` any characters, `/` included, `?` one. */
export function textGlobMatches(glob: string, text: string): boolean {
  return segmentMatches(glob, text);
}

/** `*` and `?` over code points, by dynamic programming: time bounded by the product of the lengths, never exponential. */
function segmentMatches(glob: string, text: string): boolean {
  const pattern = [...glob];
  const characters = [...text];
  let reachable = characters.map(() => false).concat(false);
  reachable[0] = true;
  for (const symbol of pattern) {
    const next = reachable.map(() => false);
    for (let j = 0; j <= characters.length; j++) {
      if (!reachable[j]) continue;
      if (symbol === '*') {
        for (let k = j; k <= characters.length; k++) next[k] = true;
        break;
      }
      if (j < characters.length && (symbol === '?' || symbol === characters[j])) next[j + 1] = true;
    }
    reachable = next;
  }
  return reachable[characters.length];
}

/** What the checks know of a tool an agent may call. */
export interface PolicyToolInfo {
  name: string;
  /** Its path arguments (tools/path-argument.ts). */
  paths: readonly string[];
  /** Its top-level argument names; undefined when its schema does not say (any name may exist). */
  args?: readonly string[];
}

/**
 * Why the policy could never work as written, one line per problem; empty when it is sound. A rule that can never
 * match is a mistake (a misspelt tool, a path rule on a tool without paths, an argument no tool has, bounds the wrong
 * way round, a rule after one that already takes all its calls), and so is a second rule of the same name: the name
 * is what a decision records. `tools` is what the agent may call; `open`: names not known yet may still come (MCP
 * tools are listed when a run starts), so an unknown name is not a problem.
 */
export function policyProblems(policy: ApprovalPolicy, tools: readonly PolicyToolInfo[], open = false): string[] {
  const problems: string[] = [];
  const names = new Set<string>();
  policy.rules.forEach((rule, index) => {
    const where = `rule ${index + 1} "${rule.name}"`;
    if (names.has(rule.name)) problems.push(`${where}: another rule has the same name`);
    if (builtInRuleNames.includes(rule.name)) problems.push(`${where}: the name is the default policy's own`);
    names.add(rule.name);
    const empty = (['tools', 'paths', 'principals', 'tenants'] as const).filter((key) => rule[key]?.length === 0);
    if (empty.length > 0) {
      problems.push(`${where}: ${empty.join(', ')} is an empty list, which nothing matches`);
      return;
    }
    const matched = tools.filter((tool) => toolMatches(rule, tool.name));
    if (matched.length === 0 && !open) {
      problems.push(`${where}: no tool of the agent is named ${rule.tools!.map((name) => `"${name}"`).join(' or ')}`);
      return;
    }
    if (rule.paths && matched.length > 0 && matched.every((tool) => tool.paths.length === 0))
      problems.push(`${where}: paths, but none of ${matched.map((tool) => tool.name).join(', ')} takes a path`);
    for (const [name, condition] of Object.entries(rule.args ?? {})) {
      if (matched.length > 0 && matched.every((tool) => tool.args !== undefined && !tool.args.includes(name)))
        problems.push(`${where}: no argument "${name}" in ${matched.map((tool) => tool.name).join(', ')}`);
      if ('min' in condition || 'max' in condition) {
        const { min, max } = condition as { min?: number; max?: number };
        if (min === undefined && max === undefined) problems.push(`${where}: argument "${name}" needs min, max or both`);
        if (min !== undefined && max !== undefined && min > max) problems.push(`${where}: argument "${name}" has min above max`);
      }
    }
    const earlier = policy.rules.slice(0, index).find((before) => takesEveryCallOf(before, rule, tools));
    if (earlier) problems.push(`${where}: never reached, rule "${earlier.name}" before it takes every call it would`);
  });
  return problems;
}

/** Whether `before` matches every call `after` could: it has no conditions but tools, and those cover `after`'s. */
function takesEveryCallOf(before: PolicyRule, after: PolicyRule, tools: readonly PolicyToolInfo[]): boolean {
  if (before.paths || before.args || before.principals || before.tenants) return false;
  if (!before.tools) return true;
  if (!after.tools) return false;
  return after.tools.every((pattern) =>
    pattern.includes('*') || pattern.includes('?')
      ? before.tools!.includes(pattern) ||
        (tools.filter((tool) => textGlobMatches(pattern, tool.name)).every((tool) => toolMatches(before, tool.name)) &&
          tools.some((tool) => textGlobMatches(pattern, tool.name)))
      : toolMatches(before, pattern),
  );
}

/** A decision said to the model when a rule refuses a call. */
export function refusalText(decision: PolicyDecision): string {
  return `not run: refused by the approval policy's rule "${decision.rule}"${decision.reason ? `: ${decision.reason}` : ''}`;
}
