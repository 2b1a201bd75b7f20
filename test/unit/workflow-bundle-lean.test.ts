import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { quietBundlerLogger } from '../support/quiet-bundler-logger';

// Every workflow a worker starts evaluates its workflow bundle's modules again, and zod alone was over half the bundle
// (bench/NOTES.md, "Zod in a workflow bundle"). The worker's own bundle (worker/workflows.ts) and the bundle of a user whose
// workflows import `durable-agent/workflow` (workflow.ts, which re-exports the agent workflow too) stay without it.

/** The modules webpack put in a workflow bundle, by path relative to the project. */
async function bundledModules(workflowsPath: string): Promise<string[]> {
  const { code } = await bundleWorkflowCode({ workflowsPath, logger: quietBundlerLogger });
  return [...code.matchAll(/\n\/\*\*\*\/ "([^"]*)"/g)].map((match) => match[1]);
}

it("keeps zod out of the bundle a durable-agent/workflow user's worker builds, which holds the agent workflow too", async () => {
  const modules = await bundledModules(path.join(__dirname, '..', '..', 'workflow.ts'));
  expect(modules.filter((module) => /[/\\]zod[/\\]/.test(module))).toEqual([]);
  // The bundle really is the workflow side: the agent workflow, executeAgent, and the zod-free input checks.
  expect(modules).toEqual(
    expect.arrayContaining([
      './workflows/agent.ts',
      './workflows/execute-agent.ts',
      './core/input-check.ts',
      './core/resolve-input-without-zod.ts',
    ]),
  );
}, 120_000);
