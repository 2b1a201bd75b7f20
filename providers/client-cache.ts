/**
 * Provider SDK clients, kept per configuration (key, base URL, timeout) instead of made per call: a client is
 * meant to be reused, and making one costs about 0.2 ms of the worker's CPU on every model call. A few
 * configurations at most exist in a worker; the oldest is dropped past that.
 */
export class ClientCache<Client> {
  private readonly clients = new Map<string, Client>();
  constructor(private readonly capacity = 16) {}

  get(settings: Record<string, string | number | undefined>, make: () => Client): Client {
    const key = JSON.stringify(settings);
    let client = this.clients.get(key);
    if (!client) {
      client = make();
      this.clients.set(key, client);
      if (this.clients.size > this.capacity) this.clients.delete(this.clients.keys().next().value!);
    }
    return client;
  }
}
