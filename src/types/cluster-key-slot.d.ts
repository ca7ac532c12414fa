/** Types of `cluster-key-slot` (ioredis's own hash-slot function), which ships none. */
declare module "cluster-key-slot" {
  /** The Redis Cluster hash slot (0–16383) of a key, honouring its `{hash tag}`. */
  function calculateSlot(key: string | Buffer | number[]): number;
  export = calculateSlot;
}
