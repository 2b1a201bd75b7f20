import { tracingSettings } from '../../telemetry/tracing-settings';

describe('tracing settings from the OTEL_* variables', () => {
  it('are off without an OTLP endpoint, whatever else is set', () => {
    expect(tracingSettings({})).toBeUndefined();
    expect(tracingSettings({ OTEL_SERVICE_NAME: 'agents', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toBeUndefined();
  });

  it('are off when OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none, endpoint or not', () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };
    expect(tracingSettings({ ...endpoint, OTEL_SDK_DISABLED: 'true' })).toBeUndefined();
    expect(tracingSettings({ ...endpoint, OTEL_TRACES_EXPORTER: 'none' })).toBeUndefined();
    expect(tracingSettings({ ...endpoint, OTEL_TRACES_EXPORTER: 'otlp' })?.tracesUrl).toBe('http://collector:4318/v1/traces');
  });

  it('append v1/traces to OTEL_EXPORTER_OTLP_ENDPOINT and take OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as it is', () => {
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })?.tracesUrl).toBe(
      'http://collector:4318/v1/traces',
    );
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'https://otlp.example.com/otlp/' })?.tracesUrl).toBe(
      'https://otlp.example.com/otlp/v1/traces',
    );
    expect(
      tracingSettings({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://ignored:4318',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://traces.example.com/custom/path',
      })?.tracesUrl,
    ).toBe('https://traces.example.com/custom/path');
  });

  it('name the service from OTEL_SERVICE_NAME, then OTEL_RESOURCE_ATTRIBUTES, then durable-agent', () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };
    expect(tracingSettings(endpoint)?.serviceName).toBe('durable-agent');
    expect(
      tracingSettings({ ...endpoint, OTEL_RESOURCE_ATTRIBUTES: 'service.name=from-resource,deployment.environment=prod' }),
    ).toMatchObject({
      serviceName: 'from-resource',
      resourceAttributes: { 'service.name': 'from-resource', 'deployment.environment': 'prod' },
    });
    expect(
      tracingSettings({ ...endpoint, OTEL_SERVICE_NAME: 'agent-workers', OTEL_RESOURCE_ATTRIBUTES: 'service.name=other' })
        ?.serviceName,
    ).toBe('agent-workers');
  });

  it('read the export headers, percent-decoded, the traces ones winning', () => {
    const settings = tracingSettings({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'https://otlp.example.com',
      OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Basic%20abc%3D%3D,x-team=agents',
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'x-team=tracing',
    });
    expect(settings?.headers).toEqual({ authorization: 'Basic abc==', 'x-team': 'tracing' });
  });

  it('refuse what they cannot honour, naming the variable', () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };
    expect(() => tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' })).toThrow(
      'OTEL_EXPORTER_OTLP_ENDPOINT="collector:4318" must be an http:// or https:// URL (OTLP over HTTP)',
    );
    expect(() => tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'not a url' })).toThrow(
      'OTEL_EXPORTER_OTLP_ENDPOINT="not a url" is not a URL',
    );
    expect(() => tracingSettings({ ...endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toThrow(
      'OTEL_EXPORTER_OTLP_PROTOCOL="grpc" is not supported: durable-agent sends OTLP over HTTP (http/protobuf); point OTEL_EXPORTER_OTLP_ENDPOINT at the collector\'s HTTP port (4318)',
    );
    expect(() => tracingSettings({ ...endpoint, OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json' })).toThrow(
      'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL="http/json"',
    );
    expect(tracingSettings({ ...endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf' })).toBeDefined();
    expect(() => tracingSettings({ ...endpoint, OTEL_TRACES_EXPORTER: 'zipkin' })).toThrow(
      'OTEL_TRACES_EXPORTER="zipkin" is not supported',
    );
    expect(() => tracingSettings({ ...endpoint, OTEL_EXPORTER_OTLP_HEADERS: 'no-equals-sign' })).toThrow(
      'OTEL_EXPORTER_OTLP_HEADERS: "no-equals-sign" is not a key=value pair',
    );
  });
});
