/**
 * How Temporal retries a model call (workflows/model-call.ts): the SDKs' own retries are off, so these are all the
 * attempts a call gets. The model activity's retry notice reads the policy from the activity's info, and this one
 * when the info has none: a first attempt started eagerly (in the answer to the workflow task that scheduled it)
 * carries no retry policy.
 */
export const modelCallRetryPolicy = {
  initialInterval: '1s',
  backoffCoefficient: 2,
  maximumInterval: '1m',
  maximumAttempts: 10,
} as const;
