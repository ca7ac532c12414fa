/**
 * Embed endpoints, authenticated with `Authorization: Api-Key <key>` ("Embed session endpoint and
 * embed-tenant admin endpoints"): generate-session (pre-flighted), the embed-tenant groups list (cursor
 * pagination `first` / `after`, followed to the end), group delete and tenant delete.
 */
import type { PlatformTransport } from "./client";
import { preflightGenerateSession } from "./generate-session-preflight";
import type { CursorPage, EmbedTenantGroup, GenerateSessionRequest, GenerateSessionResponse } from "./types";

/** Typed embed calls. */
export class EmbedApi {
  constructor(
    private readonly http: PlatformTransport,
    private readonly authorization: string,
    private readonly pageSize: number,
  ) {}

  /**
   * Mints a session; also how external users, their groups and attributes, and (creator mode) the embed
   * tenant's definitions are upserted. Throws ValidationError with `preflight: true` before the network on a
   * contract violation. The returned `sessionId` is a secret.
   */
  async generateSession(request: GenerateSessionRequest): Promise<GenerateSessionResponse> {
    const body = preflightGenerateSession(request);
    const res = await this.http.request<GenerateSessionResponse>({ method: "POST", path: "/v1/embed/generate-session", body, authorization: this.authorization });
    return { sessionId: res.body.sessionId };
  }

  /** Every group of the embed tenant, following `pageInfo.endCursor` until `hasNextPage` is false. */
  async *iterateGroups(embedTenantName: string): AsyncGenerator<EmbedTenantGroup> {
    let after: string | undefined;
    for (;;) {
      const res = await this.http.request<CursorPage<EmbedTenantGroup>>({
        method: "GET",
        path: `/v1/embed-tenants/${encodeURIComponent(embedTenantName)}/groups`,
        query: { first: this.pageSize, after },
        authorization: this.authorization,
      });
      yield* res.body.items;
      const { hasNextPage, endCursor } = res.body.pageInfo;
      if (!hasNextPage || !endCursor || endCursor === after) return;
      after = endCursor;
    }
  }

  async listGroups(embedTenantName: string): Promise<EmbedTenantGroup[]> {
    const out: EmbedTenantGroup[] = [];
    for await (const g of this.iterateGroups(embedTenantName)) out.push(g);
    return out;
  }

  /** The group named `name` (the id a delete needs), or null. */
  async findGroupByName(embedTenantName: string, name: string): Promise<EmbedTenantGroup | null> {
    for await (const g of this.iterateGroups(embedTenantName)) if (g.name === name) return g;
    return null;
  }

  /** True when deleted, false when it was already gone (404). */
  async deleteGroup(embedTenantName: string, groupId: number | string): Promise<boolean> {
    const path = `/v1/embed-tenants/${encodeURIComponent(embedTenantName)}/groups/${encodeURIComponent(String(groupId))}`;
    return (await this.http.request({ method: "DELETE", path, authorization: this.authorization, accept: [404] })).status !== 404;
  }

  /** `DELETE /v1/embed-tenants/{embedTenantName}/`: "deletes the embed tenant". False when unknown (404). */
  async deleteTenant(embedTenantName: string): Promise<boolean> {
    const path = `/v1/embed-tenants/${encodeURIComponent(embedTenantName)}/`;
    return (await this.http.request({ method: "DELETE", path, authorization: this.authorization, accept: [404] })).status !== 404;
  }
}
