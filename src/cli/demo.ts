/**
 * `npm run demo`: the service for real, on this machine. A directory named `demo` at
 * http://127.0.0.1:$PORT/scim/v2/demo, its token from DEMO_SCIM_TOKEN (or a fresh one, printed), Redis at
 * REDIS_URL (default redis://127.0.0.1:6379; a private redis-server is started if none answers).
 * Stops cleanly on SIGINT/SIGTERM.
 */
import { randomBytes } from "node:crypto";
import path from "node:path";
import { loadConfig, ConfigError } from "../config/load";
import { createLogger } from "../observability/logger";
import { hashToken } from "../scim/auth";
import { startServer } from "../server";
import { ensureRedis } from "./local-redis";

async function main(): Promise<void> {
  const port = process.env.PORT ?? "8080";
  const redisUrl = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
  const token = process.env.DEMO_SCIM_TOKEN || randomBytes(24).toString("base64url");
  const redisChild = await ensureRedis(redisUrl, path.resolve(process.cwd(), ".data/redis"), (m) => console.log(m));

  const config = loadConfig({
    env: { ...process.env, PORT: port, REDIS_URL: redisUrl },
    overrides: {
      server: { host: "127.0.0.1", publicBaseUrl: process.env.PUBLIC_BASE_URL ?? `http://127.0.0.1:${port}` },
      directories: [{
        id: "demo", displayName: "Demo directory", tokenHashes: [hashToken(token)], target: "workforce",
        platform: { baseUrl: "http://127.0.0.1:8090/api", deploymentId: 1, apiKeyEnv: "DEMO_PLATFORM_API_KEY" },
      }],
    },
  });
  const logger = createLogger(process.env.LOG_LEVEL ?? "warn");
  const server = await startServer(config, logger);
  console.log(`scim-bridge demo
  SCIM base URL: ${server.url}/scim/v2/demo
  Bearer token:  ${token}
  Redis:         ${redisUrl}${redisChild ? " (private redis-server started by the demo)" : ""}
Try: curl -H "Authorization: Bearer ${token}" ${server.url}/scim/v2/demo/Users
Stop with Ctrl-C.`);

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    console.log("stopping…");
    await server.close();
    redisChild?.kill("SIGTERM");
    process.exit(0);
  };
  process.once("SIGINT", () => void stop());
  process.once("SIGTERM", () => void stop());
}

main().catch((err: Error) => {
  console.error(err instanceof ConfigError ? err.message : `demo failed: ${err.message}`);
  process.exit(1);
});
