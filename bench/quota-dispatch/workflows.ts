import { proxyActivities } from '@temporalio/workflow';

/**
 * One activity on `taskQueue`, and nothing else: the load of the quotas bench's dispatch table, which times how the
 * server hands out a queue's backlog under a rate limit (bench/quota-dispatch/dispatch-rate.ts).
 */
export async function oneActivity(taskQueue: string): Promise<void> {
  await proxyActivities<{ dispatched(): Promise<void> }>({ taskQueue, startToCloseTimeout: '1 minute' }).dispatched();
}
