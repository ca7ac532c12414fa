/**
 * The factory the sync engine uses: one client per directory, holding its key, deployment and limits.
 * `const platform = createPlatformClient({ baseUrl, apiKey, deploymentId, ... }); await platform.verifyKey();`
 */
import { PlatformTransport, type PlatformCallInfo, type TransportOptions } from "./client";
import { DeploymentsApi } from "./deployments";
import { EmbedApi } from "./embed-api";
import { PlatformConfigError } from "./errors/platform-config-error";
import { ScimApi } from "./scim-api";
import type { Deployment } from "./types";

/**
 * Options of `createPlatformClient` (names match the directory `platform` config keys): the transport's
 * options, plus what the API modules need.
 */
export interface PlatformClientOptions extends TransportOptions {
  /** The API key itself (read from the env var named by `apiKeyEnv`); never logged. */
  apiKey: string;
  deploymentId: number;
  /** Members per SCIM group PATCH. Default 100. */
  memberBatchSize?: number;
  /** Embed `first`. Default 100. */
  pageSize?: number;
  /** SCIM list `count`: the largest page the platform accepts. Default 1000. */
  scimPageSize?: number;
  /** Path of the platform's SCIM interface below `baseUrl` ("not shown" beyond GET /scim/v2/Users). Default `/scim/v2`. */
  scimPath?: string;
  /** SCIM accepts `Bearer` (default) or `Api-Key`. */
  scimAuthScheme?: "Bearer" | "Api-Key";
}

/** The typed platform client. */
export interface PlatformClient {
  readonly deploymentId: number;
  readonly scim: ScimApi;
  readonly embed: EmbedApi;
  readonly deployments: DeploymentsApi;
  /** Checks the key against `deploymentId` (AuthError / ScopeError). */
  verifyKey(): Promise<Deployment>;
  /** The same client, also telling `observer` of each call made through the copy (PlatformTransport.observed). */
  observed(observer: (call: PlatformCallInfo) => void): PlatformClient;
  close(): Promise<void>;
}

/** Builds a client; throws PlatformConfigError on a non-HTTPS base URL or a bad option. */
export function createPlatformClient(options: PlatformClientOptions): PlatformClient {
  if (!options.apiKey) throw new PlatformConfigError("platform apiKey is empty: set the environment variable named by apiKeyEnv");
  if (!Number.isInteger(options.deploymentId)) throw new PlatformConfigError("platform deploymentId must be an integer");
  const http = new PlatformTransport(options);
  const pageSize = options.pageSize ?? 100;
  const memberBatchSize = options.memberBatchSize ?? 100;
  // "SCIM API (`/api/scim/v2/...`): `Authorization: Bearer <SCIM_TOKEN>`"
  const scimAuth = `${options.scimAuthScheme ?? "Bearer"} ${options.apiKey}`;
  // "Embed session endpoint and embed-tenant admin endpoints: header `Authorization: Api-Key <API_KEY>`"
  const embedAuth = `Api-Key ${options.apiKey}`;
  // "REST API (`/api/v1/...`): header `Authorization: Bearer <ACCESS_TOKEN>`"
  const restAuth = `Bearer ${options.apiKey}`;
  const scimPath = (options.scimPath ?? "/scim/v2").replace(/\/+$/, "");
  const apis = (t: PlatformTransport) => ({
    scim: new ScimApi(t, scimAuth, options.scimPageSize ?? 1000, memberBatchSize, scimPath),
    embed: new EmbedApi(t, embedAuth, pageSize),
    deployments: new DeploymentsApi(t, restAuth),
  });
  const own = apis(http);
  const client: PlatformClient = {
    deploymentId: options.deploymentId,
    ...own,
    verifyKey: () => own.deployments.verifyKey(options.deploymentId),
    close: () => http.close(),
    observed: (observer) => ({ ...client, ...apis(http.observed(observer)) }),
  };
  return client;
}
