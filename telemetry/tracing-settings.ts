import { ConfigurationError } from '../core/errors';

/**
 * Where a process sends its traces, read from the standard OpenTelemetry
 * variables. Reading them loads no OpenTelemetry code: a process without
 * OTEL_EXPORTER_OTLP_ENDPOINT never loads the SDK.
 */
export interface TracingSettings {
  /** The OTLP/HTTP traces URL spans are posted to (…/v1/traces). */
  tracesUrl: string;
  /** OTEL_EXPORTER_OTLP_HEADERS and OTEL_EXPORTER_OTLP_TRACES_HEADERS, the traces ones winning. */
  headers: Record<string, string>;
  /** OTEL_SERVICE_NAME, else service.name from OTEL_RESOURCE_ATTRIBUTES, else `durable-agent`. */
  serviceName: string;
  /** OTEL_RESOURCE_ATTRIBUTES. */
  resourceAttributes: Record<string, string>;
}

export const defaultServiceName = 'durable-agent';

/**
 * The tracing settings of a process, or undefined when tracing is off: no
 * OTEL_EXPORTER_OTLP_ENDPOINT (nor OTEL_EXPORTER_OTLP_TRACES_ENDPOINT), or
 * OTEL_SDK_DISABLED=true, or OTEL_TRACES_EXPORTER=none. Settings it cannot
 * honour fail here, before anything connects.
 */
export function tracingSettings(env: NodeJS.ProcessEnv = process.env): TracingSettings | undefined {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return undefined;
  const exporter = env.OTEL_TRACES_EXPORTER?.trim().toLowerCase();
  if (exporter === 'none') return undefined;
  if (exporter && exporter !== 'otlp') {
    throw new ConfigurationError(
      `OTEL_TRACES_EXPORTER="${env.OTEL_TRACES_EXPORTER}" is not supported: durable-agent exports traces over OTLP (otlp) or not at all (none)`,
    );
  }
  const tracesUrl = endpointUrl(env);
  if (tracesUrl === undefined) return undefined;
  checkProtocol(env);
  const resourceAttributes = keyValuePairs(env.OTEL_RESOURCE_ATTRIBUTES, 'OTEL_RESOURCE_ATTRIBUTES');
  return {
    tracesUrl,
    headers: {
      ...keyValuePairs(env.OTEL_EXPORTER_OTLP_HEADERS, 'OTEL_EXPORTER_OTLP_HEADERS'),
      ...keyValuePairs(env.OTEL_EXPORTER_OTLP_TRACES_HEADERS, 'OTEL_EXPORTER_OTLP_TRACES_HEADERS'),
    },
    serviceName: env.OTEL_SERVICE_NAME?.trim() || resourceAttributes['service.name'] || defaultServiceName,
    resourceAttributes,
  };
}

/** The signal-specific URL is used as it is; the general one gets `v1/traces` appended, as the OTLP exporter spec says. */
function endpointUrl(env: NodeJS.ProcessEnv): string | undefined {
  const specific = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  if (specific) return httpUrl(specific, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  const general = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  if (!general) return undefined;
  const base = httpUrl(general, 'OTEL_EXPORTER_OTLP_ENDPOINT');
  return `${base.endsWith('/') ? base : `${base}/`}v1/traces`;
}

function httpUrl(value: string, variable: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigurationError(
      `${variable}="${value}" is not a URL: give the collector's OTLP/HTTP address, e.g. http://localhost:4318`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigurationError(
      `${variable}="${value}" must be an http:// or https:// URL (OTLP over HTTP), e.g. http://localhost:4318`,
    );
  }
  return value;
}

// Only OTLP/HTTP with protobuf bodies is built in; gRPC would need a second exporter and its own port.
function checkProtocol(env: NodeJS.ProcessEnv): void {
  for (const variable of ['OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', 'OTEL_EXPORTER_OTLP_PROTOCOL']) {
    const protocol = env[variable]?.trim();
    if (!protocol) continue;
    if (protocol === 'http/protobuf') return;
    throw new ConfigurationError(
      `${variable}="${protocol}" is not supported: durable-agent sends OTLP over HTTP (http/protobuf); point OTEL_EXPORTER_OTLP_ENDPOINT at the collector's HTTP port (4318), not its gRPC port (4317)`,
    );
  }
}

/** `key=value,key2=value2` with percent-encoded values: the W3C baggage form the OTLP headers and resource variables use. */
function keyValuePairs(value: string | undefined, variable: string): Record<string, string> {
  const pairs: Record<string, string> = {};
  for (const entry of (value ?? '').split(',')) {
    if (!entry.trim()) continue;
    const separator = entry.indexOf('=');
    const key = separator > 0 ? entry.slice(0, separator).trim() : '';
    if (!key) throw new ConfigurationError(`${variable}: "${entry.trim()}" is not a key=value pair`);
    try {
      pairs[key] = decodeURIComponent(entry.slice(separator + 1).trim());
    } catch {
      throw new ConfigurationError(`${variable}: the value of "${key}" is not valid percent-encoding`);
    }
  }
  return pairs;
}
