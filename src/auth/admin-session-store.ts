/**
 * Admin sign-in sessions in Redis (keys: admin-keys.ts); the cookie and token handling is src/auth/admin-session.ts.
 * A session's value is its form token (src/admin/forgery/form-token.ts), the proof a form came from its pages.
 */
import { AdminKeys } from "./admin-keys";
import type { RedisConnection } from "../store/connection";

export class AdminSessionStore {
  private readonly keys: AdminKeys;
  constructor(private readonly redis: RedisConnection, keyPrefix: string) {
    this.keys = new AdminKeys(keyPrefix);
  }

  async create(id: string, ttlSeconds: number, formToken: string): Promise<void> {
    await this.redis.set(this.keys.session(id), formToken, "EX", ttlSeconds);
  }

  /** The live session's form token, or undefined when there is no such session. */
  async formToken(id: string): Promise<string | undefined> {
    return (await this.redis.get(this.keys.session(id))) ?? undefined;
  }

  async remove(id: string): Promise<void> {
    await this.redis.del(this.keys.session(id));
  }
}
