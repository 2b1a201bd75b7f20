/**
 * durable-agent/testing: a kit for testing your own agents: a scripted model provider, helpers to run an agent in
 * Temporal's test environment or against a server, and replay tests of your recorded histories (docs/testing.md).
 */
export {};
