// What the server and the worker must agree on: the Temporal server and the task queue the worker polls.
export const temporalAddress = process.env.TEMPORAL_ADDRESS ?? 'localhost:7233';
export const taskQueue = process.env.AGENT_TASK_QUEUE ?? 'durable-agent';
