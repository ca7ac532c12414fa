/**
 * One socket write per turn of the event loop on a busy connection. ioredis writes each command to its
 * socket as it is sent (one `write` syscall per command); a worker at platform speed sends a dozen
 * commands per job from sixteen jobs at once, and its profile showed those writes (writeUtf8String,
 * writeBuffer, writev) as the largest single share of its CPU. Corking the socket at the
 * first write and uncorking it in the loop's next check phase (setImmediate, as ioredis's own
 * auto-pipelining defers its batches) sends everything written meanwhile as one writev: the commands of
 * every job whose Redis reply, platform answer or timer came in the same poll phase.
 *
 * Not at the end of the tick (process.nextTick): that flushes once per I/O callback, which on Redis
 * Cluster is once per node's reply chunk, so a tick's commands would leave in up to one write per node per
 * callback (bench/scale counts the writes).
 * Commands, their order and their replies are ioredis's as before (unlike `enableAutoPipelining`, which
 * rewrites how commands are queued and which BullMQ does not support); a command waits at most until the
 * end of the loop's turn that sent it.
 */
import type { Writable } from "node:stream";
import { Cluster, type Redis } from "ioredis";
import type { RedisConnection } from "./connection";

const HOOKED = Symbol("coalesced");

type HookedStream = Writable & { [HOOKED]?: true };

function hookStream(stream: HookedStream | undefined): void {
  if (!stream || stream[HOOKED]) return;
  stream[HOOKED] = true;
  const write = stream.write;
  let corked = false;
  const uncork = () => {
    corked = false;
    stream.uncork();
  };
  stream.write = function (this: Writable, ...args: Parameters<Writable["write"]>) {
    if (!corked) {
      corked = true;
      stream.cork();
      setImmediate(uncork);
    }
    return write.apply(this, args);
  } as Writable["write"];
}

function hookNode(redis: Redis): void {
  const hook = () => hookStream((redis as unknown as { stream?: HookedStream }).stream);
  redis.on("connect", hook); // each (re)connection has a new socket
  hook();
}

/** Coalesces the socket writes of `redis` (every node's, on a cluster) per tick. */
export function coalesceWrites(redis: RedisConnection): void {
  if (redis instanceof Cluster) {
    for (const node of redis.nodes("all")) hookNode(node);
    redis.on("+node", (node: Redis) => hookNode(node));
  } else hookNode(redis);
}
