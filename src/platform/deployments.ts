/**
 * `GET /v1/deployments` (REST, `Authorization: Bearer <key>`) and the start-up check that the key works and
 * covers the configured deployment. The list's shape is "not shown": a JSON array, or an object with
 * `items` or `data`, is accepted.
 */
import type { PlatformTransport } from "./client";
import { ScopeError, scopeErrorMessage } from "./errors/scope-error";
import type { Deployment } from "./types";

/** Deployment calls. */
export class DeploymentsApi {
  constructor(
    private readonly http: PlatformTransport,
    private readonly authorization: string,
  ) {}

  /** Deployments the key can see. */
  async list(): Promise<Deployment[]> {
    const { body } = await this.http.request<unknown>({ method: "GET", path: "/v1/deployments", authorization: this.authorization });
    if (Array.isArray(body)) return body as Deployment[];
    const b = body as { items?: Deployment[]; data?: Deployment[] } | undefined;
    return b?.items ?? b?.data ?? [];
  }

  /**
   * Resolves with the deployment when the key works and covers it. 401 → AuthError with the platform's
   * message (the pause reason adds what 401 means, once: src/sync/control/pause-reason.ts); 403, or the deployment absent from the list → ScopeError "key not scoped to
   * deployment N".
   */
  async verifyKey(deploymentId: number): Promise<Deployment> {
    let list: Deployment[];
    try {
      list = await this.list();
    } catch (err) {
      if (err instanceof ScopeError) throw new ScopeError(scopeErrorMessage(deploymentId), err.requestId);
      throw err;
    }
    const found = list.find((d) => Number(d.id) === deploymentId);
    if (!found) throw new ScopeError(scopeErrorMessage(deploymentId));
    return found;
  }
}
