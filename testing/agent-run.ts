import type { WorkflowHandle } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import type { AgentHandle } from '../client/start-agent';
import { sendMessage } from '../client/send-message';
import type { AgentResult, AgentStatusSnapshot, PendingApproval, TurnReply } from '../core/result';
import { approveUpdate, denyUpdate, endSessionSignal, statusQuery } from '../workflows/definitions';

/** A run started in the test env: its result, and the person's side of it (approvals) while it runs. */
export interface AgentRun {
  workflowId: string;
  handle: AgentHandle;
  /**
   * Waits for the run to end. Under time skipping, time runs ahead while this waits: decide approvals first
   * (a call still waiting would reach its approval timeout at once).
   */
  result(): Promise<AgentResult>;
  /** Waits (in real time, up to `timeoutMs`, default 30 s) until at least `count` tool calls wait for approval; returns them. */
  waitForApproval(count?: number, timeoutMs?: number): Promise<PendingApproval[]>;
  /** Approves the call named (an id from waitForApproval), or every call waiting; returns the ids approved. */
  approve(call?: string): Promise<string[]>;
  /** Denies the call named, or every call waiting: it is not run, and the model is told `reason`. */
  deny(call?: string, reason?: string): Promise<string[]>;
  /** Where the run is now (phase, pending approvals, usage). */
  status(): Promise<AgentStatusSnapshot>;
  /** The run's history so far: its events, as `agent history --out` writes them. */
  history(): Promise<temporal.api.history.v1.IHistory>;
}

/** A session started in the test env: a run that answers one message after another. */
export interface AgentSession extends AgentRun {
  /** Sends a message and waits for its answer; a failed turn throws MessageNotAnsweredError, and the session goes on. */
  send(message: string): Promise<TurnReply>;
  /** Ends the session once the messages sent are answered, and returns its result. */
  end(): Promise<AgentResult>;
}

const approvalPollMs = 100;

export function agentRun(handle: AgentHandle): AgentRun {
  const status = () => handle.query(statusQuery);
  return {
    workflowId: handle.workflowId,
    handle,
    result: () => handle.result(),
    status,
    history: () => handle.fetchHistory(),
    approve: (call) => handle.executeUpdate(approveUpdate, { args: [{ ...(call !== undefined && { call }) }] }),
    deny: (call, reason) =>
      handle.executeUpdate(denyUpdate, {
        args: [{ ...(call !== undefined && { call }), ...(reason !== undefined && { reason }) }],
      }),
    async waitForApproval(count = 1, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const snapshot = await status();
        if (snapshot.pendingApprovals.length >= count) return snapshot.pendingApprovals;
        if (Date.now() > deadline) {
          throw new Error(
            `${handle.workflowId}: waited ${timeoutMs} ms for ${count} tool call(s) to wait for approval; ` +
              `${snapshot.pendingApprovals.length} wait, and the run is ${snapshot.phase}`,
          );
        }
        await new Promise((resolve) => setTimeout(resolve, approvalPollMs));
      }
    },
  };
}

export function agentSession(handle: AgentHandle): AgentSession {
  // sendMessage follows the session across continue-as-new: it needs a handle on the workflow id, not on one run.
  const latest = handle.client.getHandle(handle.workflowId) as WorkflowHandle;
  return {
    ...agentRun(handle),
    send: (message) => sendMessage(latest, message),
    async end() {
      await latest.signal(endSessionSignal);
      return handle.result();
    },
  };
}
