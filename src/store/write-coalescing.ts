/**
 * One socket write per turn of the event loop on a busy connection. ioredis writes each command to its
 * socket as it is sent (one `write` syscall per command); a worker at platform speed sends a dozen
 * commands per job from sixteen jobs at once, and its profile showed those writes (writeUtf8String,
 * writeBuffer, writev) as the largest single share of its CPU. Corking the socket at the
 * first write and uncorking it in the loop's next check phase (setImmediate, as ioredis's own
 * auto-pipelining defers its batches) sends everything written meanwhile as one writev: the commands of
 * every job whose Redis reply, platform answer or timer came in the same poll phase.
 *
 * Uncorking at the end of the tick instead (process.nextTick, this file's first form) flushed once per
 * I/O callback. On Redis Cluster that is once per node's reply chunk, so a tick's commands left in up to
 * one write per node per callback. bench/scale, 300 directories, one worker, alternating runs: on a
 * 3-master cluster the worker's writes 142k → 67k, Redis CPU 55–59 s → 45 s, time until the simulator
 * matched 136.1 / 147.4 s → 122.4 / 124.9 s; on single Redis 83k → 48k writes, 118.7 / 111.6 s →
 * 111.0 / 111.8 s. (An earlier trial of setImmediate had 2 of 6 bench/e2e runs stall at ~50 calls/s for
 * 15–25 s, cause not found. None of 3 bench/e2e runs with RATE=5000 HOLD_WORKERS=1 did now (370–393
 * calls/s, 376 with nextTick), nor any of 14 bench/scale runs.)
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
