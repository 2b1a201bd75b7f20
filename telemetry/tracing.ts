import type { ClientInterceptors } from '@temporalio/client';
import type { OpenTelemetryPlugin } from '@temporalio/interceptors-opentelemetry';
import { ConfigurationError } from '../core/errors';
import type { AgentSpans } from './agent-spans';
import type * as OtelSdk from './otel-sdk';
import { tracingSettings, type TracingSettings } from './tracing-settings';

/** A process's OpenTelemetry tracing, made once from its environment and shared by its workers and clients. */
export interface Tracing {
  settings: TracingSettings;
  /** The official Temporal plugin: workflow, activity and client interceptors, and the sink for workflow spans. */
  temporalPlugin: OpenTelemetryPlugin;
  /** For a client made without the plugin (the CLI's): its StartWorkflow span becomes the root of the run's trace. */
  clientInterceptors: ClientInterceptors;
  /** The model call and tool call spans inside the activities. */
  spans: AgentSpans;
  /** Sends the spans still buffered; call it before the process exits. Never throws. */
  flush(): Promise<void>;
  /** Runs `work` with tracing suppressed: whatever it calls makes no span (see `untraced`). */
  untraced<T>(work: () => Promise<T>): Promise<T>;
}

let processTracing: Tracing | undefined;

/**
 * This process's tracing, or undefined when OTEL_EXPORTER_OTLP_ENDPOINT is not
 * set: then nothing of OpenTelemetry is loaded, and no interceptor is added
 * anywhere. Tracing is process-wide (one provider, one exporter, one context
 * manager), so every caller in a process must ask with the same settings.
 */
export function startTracing(env: NodeJS.ProcessEnv = process.env): Tracing | undefined {
  const settings = tracingSettings(env);
  if (!settings) return undefined;
  if (processTracing) {
    if (!sameSettings(processTracing.settings, settings)) {
      throw new ConfigurationError(
        `tracing is already set up in this process for ${processTracing.settings.tracesUrl} (service ${processTracing.settings.serviceName}); ` +
          `one process traces to one place: give every worker and client in it the same OTEL_* settings`,
      );
    }
    return processTracing;
  }
  // Required here, not imported at the top: the SDK is loaded only by processes that trace.
  const sdk = require('./otel-sdk') as typeof OtelSdk;
  processTracing = sdk.startOpenTelemetry(settings);
  return processTracing;
}

/**
 * Runs `work` making no spans when this process traces: following a run's stream is a person watching, not the
 * run's work, and each poll (an Update) would otherwise be a trace of its own beside the run's. Without tracing,
 * it runs `work` as is.
 */
export function untraced<T>(work: () => Promise<T>): Promise<T> {
  return processTracing ? processTracing.untraced(work) : work();
}

function sameSettings(a: TracingSettings, b: TracingSettings): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
