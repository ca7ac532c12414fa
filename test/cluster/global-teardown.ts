/** Global teardown of the jest project `cluster`: stops the cluster's redis-server processes by PID. */
import type { ProcessSet } from "../helpers/processes";

export default async function globalTeardown(): Promise<void> {
  await (globalThis as { __redisClusterProcesses?: ProcessSet }).__redisClusterProcesses?.killAll();
}
