/**
 * Acknowledges and deletes outbox entries a dispatcher has handled (their reconciles are queued): one
 * script, so an entry is never acked without being deleted (it would stay in the stream for good) nor
 * deleted while still pending (the sweeper would claim a hole). Sent as EVALSHA: an ioredis MULTI of XACK
 * and XDEL built a Pipeline per batch, which copies every script defined on the connection.
 */
import type { RedisConnection } from "./connection";
import { inlineCommand } from "./scripts";

/*
  KEYS[1] the outbox stream; ARGV[1] the consumer group, ARGV[2..n] entry ids
  Output: how many entries were deleted.
*/
const ACK_DELETE = `
local ids = {}
for i = 2, #ARGV do ids[#ids + 1] = ARGV[i] end
redis.call('XACK', KEYS[1], ARGV[1], unpack(ids))
return redis.call('XDEL', KEYS[1], unpack(ids))`;

/** Acks and deletes `ids` of `stream` for `group` (at most a few thousand ids: Lua's unpack limit). */
export function ackOutboxEntries(redis: RedisConnection, stream: string, group: string, ids: string[]): Promise<number> {
  if (!ids.length) return Promise.resolve(0);
  return inlineCommand<number>(redis, "outboxAckDelete", 1, ACK_DELETE)(stream, group, ...ids);
}
