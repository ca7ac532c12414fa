/** Admin sign-in sessions in Redis (keys: admin-keys.ts); the cookie and token handling is src/admin/session.ts. */
import { AdminKeys } from "./admin-keys";
import type { RedisConnection } from "./connection";

export class AdminSessionStore {
  private readonly keys: AdminKeys;
  constructor(private readonly redis: RedisConnection, keyPrefix: string) {
    this.keys = new AdminKeys(keyPrefix);
  }

  async create(id: string, ttlSeconds: number): Promise<void> {
    await this.redis.set(this.keys.session(id), "1", "EX", ttlSeconds);
  }

  async exists(id: string): Promise<boolean> {
    return (await this.redis.exists(this.keys.session(id))) === 1;
  }

  async remove(id: string): Promise<void> {
    await this.redis.del(this.keys.session(id));
  }
}
