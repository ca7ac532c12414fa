/**
 * The Redis Cluster client of the bridge (createRedisConnection makes it for `redis.clusterNodes`): ioredis's
 * Cluster with connections to masters only, and a fast path that sends a keyed command straight to its
 * slot's master. The fast path uses ioredis internals; test/store/cluster-internals.test.ts fails when an
 * ioredis release changes them, and `npm run bench:cluster-client` measures what it saves.
 */
import { Cluster, type ClusterNode, type ClusterOptions, type Redis } from "ioredis";
import { slotOf } from "./key-slot";

/** What the fast path of BridgeCluster.sendCommand keeps on a command it sent straight to its node. */
const CLUSTER = Symbol("cluster");
const OWN_REJECT = Symbol("reject");
type FastRouted = { slot?: number | null; [CLUSTER]?: Cluster; [OWN_REJECT]?: (err: Error) => void };
type ClusterInternals = { connectionPool: { getInstanceByKey(key: string): Redis | undefined } };

type SendArgs = Parameters<Cluster["sendCommand"]>;

/**
 * The first key of a command, by which it is routed. EVAL and EVALSHA, the commands of every script of the
 * bridge and of BullMQ, carry it right after the script and the number of keys ("EVALSHA sha1 numkeys [key
 * [key ...]] [arg [arg ...]]", Redis command reference), so it is read there rather than through `getKeys`,
 * which builds the list of every key of the command through @ioredis/commands for the one key routing needs.
 */
function firstKey(command: SendArgs[0]): string | Buffer | undefined {
  if (command.name === "evalsha" || command.name === "eval") {
    return Number(command.args[1]) > 0 ? (command.args[2] as string | Buffer) : undefined;
  }
  return command.getKeys()[0] as string | Buffer | undefined;
}

/** Commands that always take ioredis's own path (subscriber mode, its HIMPORT coordination, CLUSTER). */
const FULL_PATH = new Set(["subscribe", "psubscribe", "ssubscribe", "unsubscribe", "punsubscribe", "sunsubscribe", "himport", "cluster"]);

/**
 * The errors after which ioredis's Cluster sends a command again, on the same conditions as its
 * `handleError`: a redirection or a slot being migrated; a cluster down (when retried at all); the node's
 * connection closed while the cluster is ready (a failover; a cluster being closed rejects instead).
 */
function reroutes(err: Error, cluster: Cluster): boolean {
  const space = err.message.indexOf(" ");
  const word = space < 0 ? err.message : err.message.slice(0, space);
  if (word === "MOVED" || word === "ASK" || word === "TRYAGAIN") return true;
  if (word === "CLUSTERDOWN") return (cluster.options.retryDelayOnClusterDown ?? 0) > 0;
  return err.message === "Connection is closed." && (cluster.options.retryDelayOnFailover ?? 0) > 0 && cluster.status === "ready";
}

/**
 * The `reject` of a command the fast path sent: on those errors the command goes through ioredis's own
 * routing, which sends it again and from then on handles each redirection as it always has (a second
 * MOVED, the delays of TRYAGAIN, CLUSTERDOWN and failover); any other error rejects it. One function for
 * every command: no closure and no WeakSet entry per command.
 */
function rejectOrReroute(this: FastRouted & { reject(err: Error): void }, err: Error): void {
  const own = this[OWN_REJECT]!;
  const cluster = this[CLUSTER]!;
  this.reject = own;
  this[OWN_REJECT] = undefined;
  this[CLUSTER] = undefined;
  if (reroutes(err, cluster)) void Cluster.prototype.sendCommand.call(cluster, this as never);
  else own.call(this, err);
}

/**
 * A Cluster client that keeps connections to masters only. ioredis adds every seed node to its pool as a
 * master and, once CLUSTER SLOTS shows a seed to be a replica, switches it with READONLY, which opens a
 * connection to that replica; with `scaleReads: "master"` (the default) nothing is ever sent on it. With a
 * seed list that names the replicas too, every client (and every copy: BullMQ's blocking connections, the
 * registry's subscriber) held one idle connection per replica. After each slots refresh such connections
 * are closed; ioredis drops the node from its pool and re-adds it, unconnected, at the next refresh, and a
 * replica promoted to master is connected as a master when a command first goes to it.
 */
export class BridgeCluster extends Cluster {
  private readonly seeds: ClusterNode[];
  /** Commands go to masters only (scaleReads "master", the default): the fast path of sendCommand may run. */
  private readonly mastersOnly: boolean;

  constructor(seeds: ClusterNode[], options: ClusterOptions) {
    super(seeds, options as ClusterOptions & { redisOptions?: { replyMapping?: "legacy" } });
    this.seeds = seeds;
    this.mastersOnly = this.options.scaleReads === "master";
    this.on("refresh", () => {
      for (const replica of this.nodes("slave")) if (replica.status !== "wait") replica.disconnect();
    });
  }

  /**
   * Routes each command by the slot of its first key, as ioredis does (`Command.getSlot` keeps a slot set
   * beforehand), with the first key from `firstKey` and its slot from `key-slot.ts` (its hash tag hashed in
   * place).
   *
   * While the cluster is ready, a command with a key goes straight to the connection of its slot's master,
   * which ioredis's routing would pick too; ioredis's own path is taken only when a reply says the command
   * must go again (`rejectOrReroute`), and for everything else (no key, a pipeline, a node not ready, subscriber
   * commands). ioredis's path allocates per command a closure, a `reject` override and a WeakSet entry, so
   * that it can resend the command on a redirection; most commands never need it. `npm run
   * bench:cluster-client` measures the client CPU per command against ioredis's own Cluster. These are
   * ioredis internals (`connectionPool`, a Command's `slot` and `reject`): test/store/cluster-internals.test.ts
   * fails when an ioredis release changes them.
   */
  override sendCommand(command: SendArgs[0], stream?: SendArgs[1], node?: SendArgs[2]): unknown {
    const c = command as unknown as FastRouted;
    if (!node && c.slot === undefined) {
      const key = firstKey(command);
      c.slot = key == null ? null : slotOf(key);
    }
    if (!node && !stream && this.status === "ready" && c.slot != null && this.mastersOnly && !FULL_PATH.has(command.name)) {
      const master = this.slots[c.slot]?.[0];
      const redis = master === undefined ? undefined : (this as unknown as ClusterInternals).connectionPool.getInstanceByKey(master);
      if (redis?.status === "ready") {
        c[CLUSTER] = this;
        c[OWN_REJECT] = command.reject;
        command.reject = rejectOrReroute;
        return redis.sendCommand(command);
      }
    }
    return super.sendCommand(command, stream, node);
  }

  /**
   * A copy that behaves the same (ioredis's own `duplicate` would return a plain Cluster), without a socket
   * of its own for a command that has no key. Such a command goes to a random master, and a copy (BullMQ's
   * blocking connection of one shard, the registry's subscriber) would keep that socket idle ever after:
   * - the ready check (CLUSTER INFO) is left out: the original has passed it, and a copy that meets a
   *   failing cluster retries its commands (retryDelayOnClusterDown);
   * - INFO, which BullMQ sends on every connection it makes to learn the server's version, goes through
   *   the original, which has a socket to every master. BullMQ must learn the version: without it (its
   *   `skipVersionCheck`) it assumes Redis 5.0.0 and rounds its blocking waits up to whole seconds, and a
   *   delayed job (a retry, a 429 hold) due while its worker waited started up to a second late.
   */
  override duplicate(...[startupNodes, overrides]: Parameters<Cluster["duplicate"]>): Cluster {
    const options = { ...this.options, enableReadyCheck: false, ...overrides } as ClusterOptions;
    if (this.options.redisOptions && overrides?.redisOptions) options.redisOptions = { ...this.options.redisOptions, ...overrides.redisOptions };
    const copy = new BridgeCluster(startupNodes?.length ? startupNodes : this.seeds, options);
    copy.info = ((...args: unknown[]) => (this.info as (...a: unknown[]) => unknown)(...args)) as Cluster["info"];
    return copy;
  }
}
