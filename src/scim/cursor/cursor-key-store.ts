/**
 * The deployment's cursor sealing key: 32 random bytes written once to Redis (`<keyPrefix>:scim:cursor-key`)
 * so that every server process of the deployment seals and opens the same cursors, across restarts. The key
 * never leaves Redis and this process's memory (never logged, never sent).
 */
import { randomBytes } from "node:crypto";
import type { RedisConnection } from "../../store/connection";
import { cursorKeyKey } from "../../store/keys";

/** Reads the deployment's key, creating it on first use; kept in memory once read. */
export class CursorKeyStore {
  private key?: Promise<Buffer>;
  constructor(private readonly redis: RedisConnection, private readonly keyPrefix: string) {}

  get(): Promise<Buffer> {
    this.key ??= (async () => {
      const k = cursorKeyKey(this.keyPrefix);
      // the first process to ask writes it; every other one reads that one
      await this.redis.set(k, randomBytes(32).toString("hex"), "NX");
      const hex = await this.redis.get(k);
      if (!hex || !/^[0-9a-f]{64}$/.test(hex)) throw new Error(`${k} does not hold a 32-byte hex key`);
      return Buffer.from(hex, "hex");
    })().catch((err: Error) => { this.key = undefined; throw err; });
    return this.key;
  }
}
