import { readFileSync } from 'node:fs';
import type { WorkflowBundleOption } from '@temporalio/worker';
import { ConfigurationError } from '../core/errors';

// Temporal's bundler keeps module paths in the bundle: the OpenTelemetry workflow interceptors are in it or not.
const workflowInterceptorsModule = 'interceptors-opentelemetry/lib/workflow-interceptors';

/**
 * A prebuilt workflow bundle has its workflow interceptors baked in when it is
 * built. A tracing worker given a bundle without the OpenTelemetry ones would
 * export activity spans whose parents never arrive; it stops here instead.
 */
export function assertBundleTraces(bundle: WorkflowBundleOption): void {
  const code = 'code' in bundle ? bundle.code : readFileSync(bundle.codePath, 'utf8');
  if (code.includes(workflowInterceptorsModule)) return;
  const source = 'codePath' in bundle ? `the workflow bundle ${bundle.codePath} (AGENT_WORKFLOW_BUNDLE)` : 'the workflow bundle';
  throw new ConfigurationError(
    `${source} was built without the OpenTelemetry workflow interceptors, but tracing is on (OTEL_EXPORTER_OTLP_ENDPOINT): ` +
      `build it with bundleWorkflowCode({ workflowsPath, plugins: [new AgentPlugin()] }) in an environment with OTEL_EXPORTER_OTLP_ENDPOINT set, ` +
      `or leave AGENT_WORKFLOW_BUNDLE unset so the worker bundles its workflows at start`,
  );
}
