// The tests fetch and find Temporal's test server as durable-agent/testing does for its users.
export { cachedTestServerPath, ensureTestServer, testServerVersion } from '../../../testing/test-server';
