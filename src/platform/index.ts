/** The platform management-API client: re-exports only. */
export * from "./create-platform-client";
export * from "./client";
export * from "./scim-api";
export * from "./embed-api";
export * from "./deployments";
export * from "./generate-session-preflight";
export * from "./call-limiter";
export * from "./in-flight-cap";
export * from "./platform-pools";
export * from "./secure-base-url";
export * from "./types";
export * from "./errors";
