import { workflowInfo } from '@temporalio/workflow';
import type { ResolvedAgentInput } from '../core/input';
import type { AgentStream } from './agent-stream';
import type { Inbox } from './inbox';
import type { AgentState } from './state';

/**
 * Temporal allows 2,000 updates per run (and suggests continue-as-new at 90% of
 * that); a session hands over to a new run well before either. Changing this
 * number changes when runs continue as new: guard such a change with patched().
 */
export const updatesBeforeContinueAsNew = 1_000;

/**
 * When a run should hand its session to a new run (continue-as-new): before any
 * of Temporal's per-run limits is near (history size and events, as the server
 * suggests; updates, messages' and stream polls'), or after the model calls a
 * caller allowed one run (`continueAsNewAfterModelCalls`, for tests).
 */
export class HandOverRule {
  constructor(
    private readonly input: ResolvedAgentInput,
    private readonly inbox: Inbox,
    private readonly stream: AgentStream,
    private readonly state: AgentState,
  ) {}

  due(): boolean {
    const { continueAsNewAfterModelCalls } = this.input;
    return (
      workflowInfo().continueAsNewSuggested ||
      this.inbox.updatesThisRun >= updatesBeforeContinueAsNew ||
      this.stream.continueAsNewDue() ||
      (continueAsNewAfterModelCalls !== undefined && this.state.modelCallsThisRun >= continueAsNewAfterModelCalls)
    );
  }
}
