import type { Duration } from '@temporalio/common';
import { z } from 'zod';
import type { ApprovalText } from '../core/approval-description';
import { ConfigurationError } from '../core/errors';
import type { ToolAnswer } from '../core/tool-question';
import type { DeniedPaths } from '../core/approval-policy';
import type { AttachmentMediaType, AttachmentPart } from '../core/attachments';
import type { ToolOutput } from '../core/tool-output';
import { toolInputJsonSchema } from './input-json-schema';

export interface ToolContext {
  /** Absolute path of the run's workspace; tools must stay inside it (see ./workspace.ts). */
  workspace: string;
  /** Aborted when Temporal cancels the activity (run cancelled, or timed out). */
  signal: AbortSignal;
  /**
   * What an earlier attempt of this call recorded (`record`), read from its last heartbeat: undefined on a first
   * attempt. A call that starts something elsewhere (a remote agent's task) resumes it instead of starting another.
   */
  resumeFrom?: unknown;
  /**
   * Records what a retried attempt resumes from: sent at once as the attempt's heartbeat details, and with every
   * heartbeat after. Small, and never a secret: it is kept in the activity's state and history.
   */
  record?(details: unknown): void;
  /**
   * The approval policy's refusing path rules for this tool (core/approval-policy.ts): the workflow matched the path
   * the model gave, but only an open knows where a symlink leads. Pass them to openInWorkspace, which refuses what
   * really lies under one of them.
   */
  deniedPaths?: readonly DeniedPaths[];
  /**
   * Whether the call may ask the run's person mid-call (a tool with `asksPerson`, in a run that can): throw
   * `PersonInputNeeded` (core/tool-question.ts) with the question, and the call is called again with the answer.
   */
  mayAsk?: boolean;
  /** The person's answer to the question the previous activity of this call asked, with that question's `resume`. */
  answer?: ToolAnswer;
  /**
   * Checks bytes the tool read against the media type they claim (core/attachment-sniff.ts: an executable named .png,
   * a PNG with something appended, a PDF with JavaScript are refused) and stores them in the attachment store, beside
   * the payloads: return the reference in the output's `attachments` and the model is given the image or file
   * (docs/attachments.md). A refusal is a ToolInputError, its reason for the model. Absent where nothing is stored.
   */
  attach?(bytes: Uint8Array, mediaType: AttachmentMediaType, name?: string): Promise<AttachmentPart>;
}

/** Per-tool activity settings. Durations use Temporal's format ('30s', '5m'). */
export interface ToolActivitySettings {
  /** Longest one attempt may take (start-to-close). */
  timeout: Duration;
  /** Attempts including the first; 1 means never retried. */
  maximumAttempts: number;
  initialRetryInterval: Duration;
  /**
   * How long the activity may go without a heartbeat before Temporal gives the call to another worker (default `30s`):
   * the time a dead worker's call waits. A tool heartbeats every 2 s while it runs (activities/heartbeating.ts).
   */
  heartbeatTimeout?: Duration;
  /**
   * Run each call as a local activity: inside the workflow task that follows the model's reply, on the worker that
   * runs the workflow, with no activity task of its own. An iteration then costs one workflow task instead of two
   * (bench/NOTES.md: 18–21 ms against 25–27 ms per iteration here; a replay only 5–10% faster). The price: the
   * call is a marker in history, not an activity with its own row in the Web UI; it has no heartbeats, so a worker
   * that dies mid-call is noticed only when the workflow task times out; its retries are timers in the workflow.
   * For tools that are fast (well under a second), need no routing of their own, and are safe to run twice.
   * Off by default. A run keeps the setting it started with (it is part of the run's recorded setup).
   */
  local?: boolean;
}

export interface Tool<Input = unknown> {
  name: string;
  description: string;
  input: z.ZodType<Input>;
  /**
   * Returns the text that goes back to the model, or the text with the references `context.attach` gave for images
   * and files. Throw ToolInputError for refusals the model should see at once.
   * (Method syntax on purpose: it lets a Tool<{path: string}> stand in a Tool[] list.)
   */
  handler(input: Input, context: ToolContext): Promise<ToolOutput>;
  activity: ToolActivitySettings;
  /**
   * Whether a call must be approved by a person before it runs: always, or
   * depending on its arguments. Decided by the model activity when the model
   * asks for the call (and recorded there), so replay never re-evaluates it.
   */
  needsApproval?: boolean | Bivariant<Input>;
  /**
   * How a call looks to the person asked to approve it, from its validated arguments: a one-line headline (put what
   * the call acts on first) and an optional preview. Without it a call is shown as its arguments in canonical JSON.
   * Either way, characters that hide or fake text are escaped and anything clipped says so (core/approval-description.ts).
   */
  describeForApproval?: DescribeBivariant<Input>;
  /**
   * The tool only reads: no call changes anything, in the workspace or beyond it. What `agent mcp` tells MCP clients
   * of an agent whose tools are all read-only (`readOnlyHint`, and `destructiveHint: false`). Unset: it may write.
   */
  readOnly?: boolean;
  /**
   * The workflow runs this tool itself, not an activity: a durable timer or a wait on the run's own state (the time
   * tools of time/, whose workflow side the worker's bundle registers: workflows/workflow-tools.ts). `maxSeconds`
   * bounds how long one call may wait; it is recorded in the run's setup, so a run keeps the bound it started with.
   * The handler is never called, and no activity is registered for the tool.
   */
  inWorkflow?: InWorkflowSettings;
  /**
   * A call may need the person's answer mid-call (a remote agent's question): its handler is told (`mayAsk`) and may
   * throw `PersonInputNeeded`; the run asks the person through its approvals and calls the tool again with the answer.
   */
  asksPerson?: boolean;
}

/** How a tool the workflow runs itself is bounded (Tool's `inWorkflow`). */
export interface InWorkflowSettings {
  /** The longest one call may wait, in seconds. */
  maxSeconds: number;
  /** The agent's own bound (defineAgent's `time`) that may tighten `maxSeconds` for its calls. */
  agentBound?: 'maxSleepSeconds' | 'maxWaitSeconds';
}

// Method syntax on purpose (bivariant, as `handler`): a Tool<{path: string}> still stands in a Tool[] list.
type Bivariant<Input> = { rule(input: Input): boolean }['rule'];
type DescribeBivariant<Input> = { describe(input: Input): ApprovalText }['describe'];

export interface ToolSpec<Schema extends z.ZodType> {
  name: string;
  description: string;
  input: Schema;
  handler: (input: z.output<Schema>, context: ToolContext) => Promise<ToolOutput>;
  activity?: Partial<ToolActivitySettings>;
  /** A person approves each call first (`true`), or the calls whose arguments this function picks. */
  needsApproval?: boolean | ((input: z.output<Schema>) => boolean);
  /** What a person sees when asked to approve a call: `{ headline, preview? }` built from the validated arguments. */
  describeForApproval?: (input: z.output<Schema>) => ApprovalText;
  /** No call changes anything (Tool's `readOnly`). */
  readOnly?: boolean;
  /** A call may ask the person mid-call (Tool's `asksPerson`). */
  asksPerson?: boolean;
}

const defaultActivitySettings: ToolActivitySettings = {
  timeout: '60s',
  maximumAttempts: 3,
  initialRetryInterval: '1s',
};

// Both OpenAI and Anthropic accept tool names matching this pattern; Temporal uses the name as the activity type.
const toolNamePattern = /^[a-zA-Z0-9_-]{1,64}$/;

/** Defines a tool once: its name, description, zod input schema (the model's JSON Schema is derived from it) and handler. */
export function defineTool<Schema extends z.ZodType>(spec: ToolSpec<Schema>): Tool<z.output<Schema>> {
  if (!toolNamePattern.test(spec.name)) {
    throw new ConfigurationError(`tool name "${spec.name}" must match ${toolNamePattern}`);
  }
  if (!spec.description.trim()) {
    throw new ConfigurationError(`tool "${spec.name}" needs a description: the model chooses tools by it`);
  }
  const activity = { ...defaultActivitySettings, ...spec.activity };
  if (!Number.isInteger(activity.maximumAttempts) || activity.maximumAttempts < 1) {
    throw new ConfigurationError(`tool "${spec.name}": maximumAttempts must be a positive integer`);
  }
  toolInputJsonSchema(spec.name, spec.input);
  return {
    name: spec.name,
    description: spec.description,
    input: spec.input as z.ZodType<z.output<Schema>>,
    handler: spec.handler,
    activity,
    ...(spec.needsApproval !== undefined && { needsApproval: spec.needsApproval }),
    ...(spec.describeForApproval && { describeForApproval: spec.describeForApproval }),
    ...(spec.readOnly !== undefined && { readOnly: spec.readOnly }),
    ...(spec.asksPerson && { asksPerson: true }),
  };
}

/** The JSON Schema the model sees for a tool's arguments (a ConfigurationError when the input cannot have one). */
export function toolJsonSchema(tool: Tool): Record<string, unknown> {
  return toolInputJsonSchema(tool.name, tool.input);
}
