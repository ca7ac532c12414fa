/** The platform simulator: public surface for tests, the demo and benches. */
export * from "./start-simulator";
export * from "./app";
export * from "./config";
export * from "./faults-schema";
export type { ActiveFaults } from "./faults";
export type { SimStateSnapshot } from "./state";
export type { CountersSnapshot, EndpointCount, FaultCount } from "./counters";
