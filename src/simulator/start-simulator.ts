/**
 * Starts the simulator in-process, for tests, the demo and benches:
 * `const sim = await startSimulator({ port: 0, config: {...} })`; the platform base URL is `sim.baseUrl`.
 */
import type { Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { createSimulatorApp } from "./app";
import { simConfigSchema, type SimConfig, type SimConfigInput } from "./config";
import type { ActiveFaults } from "./faults";
import type { FaultsInput } from "./faults-schema";
import type { SimState } from "./state";

/** A running simulator. */
export interface RunningSimulator {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** The platform `{base_url}`: `http://127.0.0.1:<port>/api` */
  baseUrl: string;
  port: number;
  config: SimConfig;
  /** Live state (same data as `GET /_sim/state`, via `state.snapshot()`). */
  state: SimState;
  /** Replaces the fault settings (same as `PUT /_sim/faults`). */
  setFaults(faults: FaultsInput): ActiveFaults;
  /** Stops listening and destroys open connections. */
  close(): Promise<void>;
}

/** Options of `startSimulator`. */
export interface StartSimulatorOptions {
  /** 0 picks a free port. */
  port?: number;
  host?: string;
  config?: SimConfigInput | SimConfig;
}

/** Starts listening and resolves once the port is bound. */
export async function startSimulator(options: StartSimulatorOptions = {}): Promise<RunningSimulator> {
  const config = simConfigSchema.parse(options.config ?? {});
  const { app, state, faults } = createSimulatorApp(config);
  const host = options.host ?? "127.0.0.1";
  const sockets = new Set<Socket>();
  const server: Server = await new Promise((resolve, reject) => {
    const s = app.listen(options.port ?? 0, host, (err?: Error) => (err ? reject(err) : resolve(s)));
  });
  server.keepAliveTimeout = 60_000;
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  const port = (server.address() as AddressInfo).port;
  const url = `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
  return {
    url,
    baseUrl: `${url}/api`,
    port,
    config,
    state,
    setFaults: (f) => faults.set(f),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
