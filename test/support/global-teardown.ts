import type { TestWorkflowEnvironment } from '@temporalio/testing';

export default async function globalTeardown(): Promise<void> {
  const environment = (globalThis as Record<string, unknown>).temporalTestEnvironment as TestWorkflowEnvironment | undefined;
  await environment?.teardown();
}
