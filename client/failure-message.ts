import { WorkflowFailedError } from '@temporalio/client';

/** The innermost useful message of a workflow failure: the provider's words, not "Workflow execution failed". */
export function failureMessage(error: unknown): string {
  if (error instanceof WorkflowFailedError) {
    const cause = error.cause;
    if (cause?.name === 'CancelledFailure') return 'the run was cancelled';
    if (cause?.name === 'TerminatedFailure') return 'the run was terminated';
    return cause?.message ?? error.message;
  }
  return error instanceof Error ? error.message : String(error);
}
