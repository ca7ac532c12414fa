/**
 * Per-endpoint call counters of the simulator, split into reads (GET) and writes (POST, PUT, PATCH,
 * DELETE), so a test can assert that a no-drift resync made no write call. Requests answered by an
 * injected fault never reach an endpoint; they are counted under `faults`.
 */

/** Counts of one endpoint. */
export interface EndpointCount {
  reads: number;
  writes: number;
}

/** What injected faults answered. */
export interface FaultCount {
  rateLimited: number;
  errors: number;
  dropped: number;
  outage: number;
}

/** Shape of `counters` in `GET /_sim/state`. */
export interface CountersSnapshot {
  total: EndpointCount;
  /** Keyed by "METHOD /route", e.g. "PATCH /scim/v2/Groups/:id". */
  endpoints: Record<string, EndpointCount>;
  faults: FaultCount;
}

/** Mutable counters. */
export class Counters {
  private total: EndpointCount = { reads: 0, writes: 0 };
  private endpoints = new Map<string, EndpointCount>();
  private faults: FaultCount = { rateLimited: 0, errors: 0, dropped: 0, outage: 0 };

  /** Counts one call of `endpoint` (e.g. "GET /v1/deployments"). */
  hit(method: string, route: string): void {
    const key = `${method} ${route}`;
    let c = this.endpoints.get(key);
    if (!c) this.endpoints.set(key, (c = { reads: 0, writes: 0 }));
    const kind = method === "GET" || method === "HEAD" ? "reads" : "writes";
    c[kind]++;
    this.total[kind]++;
  }

  /** Counts one injected fault. */
  fault(kind: keyof FaultCount): void {
    this.faults[kind]++;
  }

  reset(): void {
    this.total = { reads: 0, writes: 0 };
    this.endpoints.clear();
    this.faults = { rateLimited: 0, errors: 0, dropped: 0, outage: 0 };
  }

  snapshot(): CountersSnapshot {
    return { total: { ...this.total }, endpoints: Object.fromEntries([...this.endpoints].map(([k, v]) => [k, { ...v }])), faults: { ...this.faults } };
  }
}
