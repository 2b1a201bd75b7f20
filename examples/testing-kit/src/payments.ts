// The app's payment system, as the tools see it. A stand-in kept in memory, so the tests can see what was refunded.
export const refunds: string[] = [];

export async function refund(orderId: string): Promise<void> {
  refunds.push(orderId);
}
