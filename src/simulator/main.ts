/**
 * `npm run simulator`: runs the platform simulator standalone. `SIM_PORT` (default 8090) and `SIM_CONFIG`
 * (a JSON file, schema in `config.ts`, example in config/simulator.example.json). Prints what it loaded,
 * with API keys shortened to their first 4 characters.
 */
import fs from "node:fs";
import { simConfigSchema } from "./config";
import { startSimulator } from "./start-simulator";

/** A key as it may be printed. */
export function maskKey(key: string): string {
  return `${key.slice(0, 4)}…(${key.length} chars)`;
}

async function main(): Promise<void> {
  const file = process.env.SIM_CONFIG;
  const raw: unknown = file ? JSON.parse(fs.readFileSync(file, "utf8")) : {};
  const parsed = simConfigSchema.safeParse(raw);
  if (!parsed.success) {
    console.error(`simulator: ${file ?? "(default config)"} is not valid:\n${parsed.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`).join("\n")}`);
    process.exit(1);
  }
  const config = parsed.data;
  const sim = await startSimulator({ port: Number(process.env.SIM_PORT ?? 8090), host: process.env.SIM_HOST ?? "127.0.0.1", config });
  console.log(`platform simulator listening; base_url ${sim.baseUrl}`);
  console.log(`config: ${file ?? "(defaults)"}`);
  console.log(`tenant: ${config.tenant.name}, plan ${config.tenant.plan}, useCreatorMode ${config.tenant.useCreatorMode}, externalUserLimit ${config.tenant.externalUserLimit}`);
  console.log(`deployments: ${config.deployments.map((d) => `${d.id} (${d.name})`).join(", ") || "none"}`);
  for (const k of config.apiKeys) {
    const scope = k.deployments === "all" ? "unscoped" : `deployments ${k.deployments.join(", ")}`;
    console.log(`api key ${k.name ?? ""} ${maskKey(k.key)}: ${scope}${k.admin ? ", admin" : ""}${k.expiresAt ? `, expires ${k.expiresAt}` : ""}`);
  }
  console.log(`internal users: ${config.internalUsers.length}, tenant-wide groups: ${config.groups.length}, attribute catalog: ${config.userAttributes.map((a) => `${a.name}:${a.type}`).join(", ") || "empty"}`);
  console.log(`scoped keys on account paths: ${config.scopedKeyAccountAccess}; /_sim header ${config.admin.header}`);
  console.log(`faults: ${JSON.stringify(config.faults)}`);
  const stop = () => void sim.close().then(() => process.exit(0));
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

void main();
