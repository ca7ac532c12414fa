/**
 * A SCIM write, and an operator's change of a directory or its credentials (directory-records.ts), is
 * answered only once replicas hold it (`redis.replicaAck.replicas` > 0). Redis replicates
 * asynchronously: a master that dies right after answering can take the write with it, and the replica
 * promoted in its place never saw it, although the IdP was told it succeeded. WAIT closes that window:
 *
 * [Redis docs, WAIT](https://redis.io/docs/latest/commands/wait/): "This command blocks the current client
 * until all the previous write commands are successfully transferred and acknowledged by at least the
 * number of replicas you specify in the numreplicas argument."
 *
 * Because WAIT counts "the previous write commands" of its own connection, the writes run on a connection
 * of their own (`connection`), and the WAIT follows them on it, on the node that holds the directory's
 * slot. That connection is blocked while a WAIT waits, so it carries nothing else: reads keep their
 * connection and stay fast while a replica is slow or gone. One WAIT per node per tick covers every write
 * answered on it before: a burst of writes costs one replica round trip, not one each.
 *
 * Fewer acknowledgements than asked within `timeoutMs` reject with StoreNotReplicatedError, answered
 * 503 + Retry-After: the write is on the master and may be lost with it, so the IdP must not count it
 * as done. Its retry is safe (IdPs look a user up before they create it). That includes a master with
 * fewer replicas than asked — with one replica per master, the master promoted by a failover until the
 * old one rejoins as its replica, or a master whose replica restarts — like Redis's own
 * `min-replicas-to-write`: answering such writes would tell the IdP "done" for data one more failure
 * loses. Two replicas per master with `replicas: 1` ride out the loss of one.
 */
import type { Redis } from "ioredis";
import type { Logger } from "pino";
import { closeConnection, createStoreConnection, nodeFor, waitReady, type RedisConnection, type RedisSettings } from "./connection";
import { StoreNotReplicatedError } from "./errors";

export interface ReplicaAckSettings {
  /** Replicas that must hold a write before it is answered; 0 turns acknowledgements off. */
  replicas: number;
  /** How long a write waits for them before it is answered 503. */
  timeoutMs: number;
}

interface Waiter {
  resolve(): void;
  reject(err: Error): void;
}

export class ReplicaAck {
  /** The connection SCIM writes go through (WAIT blocks it: nothing else runs on it). */
  readonly connection: RedisConnection;
  private readonly pending = new Map<Redis, Waiter[]>();
  private scheduled = false;

  /**
   * Opens the write connection. Its command timeout is the store's plus two WAITs: a write sent while a
   * WAIT blocks the connection runs only after that WAIT returns, and must not time out meanwhile.
   */
  constructor(redis: RedisSettings, readonly settings: ReplicaAckSettings) {
    const commandTimeoutMs = (redis.commandTimeoutMs ?? 5000) + 2 * settings.timeoutMs;
    this.connection = createStoreConnection({ ...redis, commandTimeoutMs });
  }

  /**
   * The acknowledgements `redis.replicaAck` asks for, with their connection ready; undefined when it asks
   * for none (replicas 0).
   */
  static async open(redis: RedisSettings & { replicaAck: ReplicaAckSettings }, logger?: Logger): Promise<ReplicaAck | undefined> {
    if (redis.replicaAck.replicas <= 0) return undefined;
    const ack = new ReplicaAck(redis, redis.replicaAck);
    ack.connection.on("error", (err: Error) => logger?.debug({ err: { message: err.message } }, "redis write connection error"));
    await waitReady(ack.connection, 10000).catch((err: Error) => { ack.connection.disconnect(); throw err; });
    return ack;
  }

  /** Resolves once `replicas` replicas hold every write answered so far on the node that holds `key`. */
  confirm(key: string): Promise<void> {
    const node = nodeFor(this.connection, key);
    if (!node) return Promise.reject(new StoreNotReplicatedError("no master is known for the directory's slot"));
    return new Promise<void>((resolve, reject) => {
      const waiters = this.pending.get(node);
      if (waiters) waiters.push({ resolve, reject });
      else this.pending.set(node, [{ resolve, reject }]);
      if (!this.scheduled) {
        this.scheduled = true;
        // after the microtasks of this tick: every write whose reply came in the same chunk joins this WAIT
        process.nextTick(() => this.flush());
      }
    });
  }

  async close(): Promise<void> {
    await closeConnection(this.connection);
  }

  /** One WAIT for the waiters of `node`; settles them all. */
  private async acknowledge(node: Redis, waiters: Waiter[]): Promise<void> {
    const { replicas, timeoutMs } = this.settings;
    let err: StoreNotReplicatedError | undefined;
    try {
      const acked = (await node.call("WAIT", replicas, timeoutMs)) as number;
      if (acked < replicas) err = new StoreNotReplicatedError(`${acked} of ${replicas} replica(s) acknowledged it within ${timeoutMs} ms`);
    } catch (e) {
      err = new StoreNotReplicatedError((e as Error).message);
    }
    for (const w of waiters) if (err) w.reject(err); else w.resolve();
  }

  private flush(): void {
    this.scheduled = false;
    for (const [node, waiters] of this.pending) {
      this.pending.delete(node);
      void this.acknowledge(node, waiters);
    }
  }
}
