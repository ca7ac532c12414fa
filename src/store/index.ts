export * from "./types";
export * from "./errors";
export * from "./keys";
export * from "./user-store";
export * from "./group-store";
export * from "./connection";
export * from "./sync-state";
export * from "./auth-failure-keys";
