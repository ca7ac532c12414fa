/**
 * One socket write per tick on a busy connection. ioredis writes each command to its socket as it is sent
 * (one `write` syscall per command); a worker at platform speed sends a dozen commands per job from
 * sixteen jobs at once, and its profile showed those writes (writeUtf8String, writeBuffer, writev) as the
 * largest single share of its CPU (issue 11 item 6). Corking the socket at the first write of a tick and
 * uncorking it once the tick's microtasks have run (process.nextTick) sends everything written meanwhile,
 * by every job whose Redis reply arrived in the same chunk, as one writev. (Uncorking in the next check
 * phase, setImmediate, batched a little more, but 2 of its 6 bench runs stalled at ~50 calls/s for
 * 15-25 s, which no run of this one or of the unbatched connection did: not kept until that is understood.)
 * Commands, their order and their replies are ioredis's as before (unlike `enableAutoPipelining`, which
 * rewrites how commands are queued and which BullMQ does not support); a command waits at most until
 * the end of the tick that sent it.
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
      process.nextTick(uncork);
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
