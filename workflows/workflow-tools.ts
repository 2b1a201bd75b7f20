import type { AgentSpec } from '../core/agent-spec';
import type { ToolCall } from '../core/messages';
import type { TimedWait } from '../core/timed-wait';
import type { InWorkflowSettings } from '../tools/define-tool';

/**
 * The hook for tools the workflow runs itself (Tool's `inWorkflow`): a durable timer, a wait for an event. A feature
 * (time/) defines the runners and registers them in the worker's workflow bundle (worker/workflows.ts, and
 * `durable-agent/workflow` for bundles of your own); each run starts every registered feature once, so the feature
 * can set its own handlers (an update that delivers an event) before the run's first activation ends. Nothing here
 * names a feature: the workflow only asks for a runner by the tool's name.
 */

/** One call of a tool the workflow runs itself, as its runner gets it. */
export interface WorkflowToolCall {
  call: ToolCall;
  /** The arguments as parsed JSON, unchecked: they are the model's, so the runner checks them. */
  parsed: unknown;
  /** The tool's bound, as the run's setup recorded it. */
  settings: InWorkflowSettings;
  /** The wait this call began in an earlier run of the chain, carried across continue-as-new: wait on to its deadline. */
  carried?: TimedWait;
  /** What the call waits on now (shown by the status, carried if the run hands over meanwhile); undefined when it stops. */
  waiting(wait: TimedWait | undefined): void;
}

/**
 * The bound a call of this agent waits under: the tool's (the worker's), tightened by the agent's own when it has one
 * (defineAgent's `time`), never loosened. Both are recorded in the run's setup, so replay reads the same bound.
 */
export function boundForAgent(tool: InWorkflowSettings, agent: Pick<AgentSpec, 'time'>): InWorkflowSettings {
  const own = tool.agentBound !== undefined ? agent.time?.[tool.agentBound] : undefined;
  return own !== undefined && own < tool.maxSeconds ? { ...tool, maxSeconds: own } : tool;
}

/** What a call comes to: its result for the model. A runner rejects only with cancellation. */
export interface WorkflowToolResult {
  content: string;
  isError: boolean;
}

export type WorkflowToolRunner = (call: WorkflowToolCall) => Promise<WorkflowToolResult>;

/** What a feature's tools are in one run. */
export interface WorkflowToolRun {
  /** The feature's tools, by name. */
  runners: Record<string, WorkflowToolRunner>;
  /** Something came in (an event) that its waiter has not taken yet: the run must not hand over at this moment. */
  settling?(): boolean;
}

/** What a run tells a feature when it starts it. */
export interface WorkflowToolContext {
  /** Whether the run has decided to continue as new with its waits carried: nothing may be delivered to them here any more. */
  handingOver(): boolean;
}

export interface WorkflowToolFeature {
  /** The feature's name; registering it again changes nothing. */
  name: string;
  /** Called once per run, from the run's constructor: set handlers here. */
  start(context: WorkflowToolContext): WorkflowToolRun;
}

// Filled when the bundle loads, the same for every run: a list of features, never any run's state.
const features: WorkflowToolFeature[] = [];

export function registerWorkflowTools(feature: WorkflowToolFeature): void {
  if (!features.some((known) => known.name === feature.name)) features.push(feature);
}

/** One run's workflow tools: every registered feature started, and what their calls wait on now. */
export class WorkflowTools {
  private readonly runners = new Map<string, WorkflowToolRunner>();
  private readonly runs: WorkflowToolRun[] = [];
  private readonly current = new Map<string, TimedWait>();
  private handedOver = false;

  /** `changed`: what waits has changed, so the status shows it. */
  constructor(private readonly changed: () => void) {
    const context = { handingOver: () => this.handedOver };
    for (const feature of features) {
      const run = feature.start(context);
      this.runs.push(run);
      for (const [name, runner] of Object.entries(run.runners)) this.runners.set(name, runner);
    }
  }

  /** Runs a call of `name`; a run whose bundle lacks the feature (a worker of your own without it) says so to the model. */
  run(name: string, call: Omit<WorkflowToolCall, 'waiting'>, began?: (wait: TimedWait) => void): Promise<WorkflowToolResult> {
    const runner = this.runners.get(name);
    if (!runner)
      return Promise.resolve({
        content: `Error: ${name} runs in the workflow, and this worker's workflow bundle does not have it`,
        isError: true,
      });
    const { id } = call.call;
    const waiting = (wait: TimedWait | undefined) => {
      if (wait) {
        this.current.set(id, wait);
        began?.(wait);
      } else this.current.delete(id);
      this.changed();
    };
    return runner({ ...call, waiting }).finally(() => {
      if (this.current.delete(id)) this.changed();
    });
  }

  /** What waits now, oldest first. */
  waits(): TimedWait[] {
    return [...this.current.values()];
  }

  /** Whether something came in that its waiter has not yet taken. */
  settling(): boolean {
    return this.runs.some((run) => run.settling?.() ?? false);
  }

  /** The run hands its waits to the next run: from now on they take nothing here. Returns the waits of `calls`. */
  handOver(calls: string[]): TimedWait[] {
    this.handedOver = true;
    return calls.flatMap((id) => this.current.get(id) ?? []);
  }
}
