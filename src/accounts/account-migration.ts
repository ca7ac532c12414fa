/**
 * Start-up move of platform-account records to the account's canonical identity (account-identity.ts).
 * Earlier releases named an account by its base URL as typed, so two spellings of one account kept two
 * ownership maps and two external-user counts. For each directory whose typed URL hashes differently from
 * its identity, the owner hashes of its spaces and the external-user set move to the canonical keys in
 * slices of at most BATCH entries (HSCAN / SSCAN, then a write to the new key, then a delete from the old).
 * Idempotent and interruptible: an entry is removed from the old key only after it is in the new one, and a
 * second run (or a second worker at once) finds nothing left. An owner already recorded under the
 * canonical key is kept; the moved entry that disagrees is logged as a conflict for an operator's hand-over.
 */
import type { Logger } from "pino";
import type { DirectoryConfig } from "../config/schema";
import { AccountKeys } from "./account-keys";
import type { RedisConnection } from "../store/connection";
import { defineStoreCommands } from "../store/scripts";
import { accountHash, legacyAccountHash } from "./account-identity";

const BATCH = 500;
/** Full scans of one old key per start: a key an older process keeps writing is left to the next start. */
const PASSES = 10;

export interface AccountMoveReport {
  moved: number;
  /** Resources two spellings gave different owners: the canonical key's owner was kept. */
  conflicts: Array<{ key: string; resource: string; moved: string; kept: string }>;
}

/** The old → new key pairs of the directories' accounts, each once. */
function movesOf(keyPrefix: string, dirs: DirectoryConfig[]): Array<{ from: string; to: string; type: "hash" | "set" }> {
  const legacy = AccountKeys.legacy(keyPrefix);
  const current = new AccountKeys(keyPrefix);
  const moves = new Map<string, { from: string; to: string; type: "hash" | "set" }>();
  for (const d of dirs) {
    const url = d.platform.baseUrl;
    if (legacyAccountHash(url) === accountHash(url)) continue;
    const spaces = ["u", "g", "eu", ...(d.embed ? [`eg:${d.embed.tenantName}`] : [])];
    for (const s of spaces) moves.set(legacy.owners(url, s), { from: legacy.owners(url, s), to: current.owners(url, s), type: "hash" });
    moves.set(legacy.externalUsers(url), { from: legacy.externalUsers(url), to: current.externalUsers(url), type: "set" });
  }
  return [...moves.values()];
}

async function moveHash(redis: RedisConnection, from: string, to: string, report: AccountMoveReport): Promise<void> {
  const r = defineStoreCommands(redis);
  for (let pass = 0; pass < PASSES && (await redis.exists(from)); pass++) {
    let cursor = "0";
    do {
      const [next, flat] = await redis.hscan(from, cursor, "COUNT", BATCH);
      cursor = next;
      if (!flat.length) continue;
      const conflicts = await r.mergeOwners(to, ...flat);
      for (let i = 0; i < conflicts.length; i += 3) report.conflicts.push({ key: to, resource: conflicts[i], moved: conflicts[i + 1], kept: conflicts[i + 2] });
      await redis.hdel(from, ...flat.filter((_, i) => i % 2 === 0));
      report.moved += flat.length / 2;
    } while (cursor !== "0");
  }
}

async function moveSet(redis: RedisConnection, from: string, to: string, report: AccountMoveReport): Promise<void> {
  for (let pass = 0; pass < PASSES && (await redis.exists(from)); pass++) {
    let cursor = "0";
    do {
      const [next, members] = await redis.sscan(from, cursor, "COUNT", BATCH);
      cursor = next;
      if (!members.length) continue;
      await redis.sadd(to, ...members);
      await redis.srem(from, ...members);
      report.moved += members.length;
    } while (cursor !== "0");
  }
}

/** Moves the directories' account records to their canonical keys; logs what moved and every conflict. */
export async function migrateAccountKeys(redis: RedisConnection, keyPrefix: string, dirs: DirectoryConfig[], logger?: Logger): Promise<AccountMoveReport> {
  const report: AccountMoveReport = { moved: 0, conflicts: [] };
  for (const m of movesOf(keyPrefix, dirs)) {
    if (m.type === "hash") await moveHash(redis, m.from, m.to, report);
    else await moveSet(redis, m.from, m.to, report);
  }
  if (report.moved) logger?.info({ moved: report.moved }, "platform-account records moved to the account's canonical identity");
  for (const c of report.conflicts) {
    logger?.warn({ resource: c.resource, moved: c.moved, kept: c.kept }, `two spellings of one platform account gave ${c.resource} two owners: directory "${c.kept}" keeps it; hand it over if "${c.moved}" should manage it`);
  }
  return report;
}
