/**
 * Jest runs TypeScript through @swc/jest (no type-check: `npm run typecheck` does that, see STACK.md §2).
 * Every suite talks to the real Redis at REDIS_URL (default redis://127.0.0.1:6379) under its own key prefix.
 *
 * Projects (`npm test` runs them one after the other: `jest --selectProjects fast`, then `fault`):
 *   fast   every suite except test/fault
 *   fault  test/fault: simulator, bridge and redis-server child processes that the tests SIGKILL; run
 *          with 3 workers (package.json), the 60 s outage suite first (test/helpers/sequencer.js)
 *   cluster  (only with JEST_CLUSTER=1: `npm run test:cluster`) a local Redis Cluster of 3 masters + 3
 *          replicas started by test/cluster/global-setup.ts; the store, SCIM and sync suites of
 *          CLUSTER_SUITES run on it unchanged (the helpers connect through the cluster), plus test/cluster:
 *          a master killed mid-push, and Sentinel
 * `npx jest test/<path>` runs the matching suites of every project.
 * @type {import('jest').Config}
 */
const shared = {
  testEnvironment: "node",
  testMatch: ["**/*.test.ts"],
  transform: {
    "^.+\\.ts$": ["@swc/jest", {
      jsc: { parser: { syntax: "typescript" }, target: "es2022" },
      module: { type: "commonjs" },
    }],
  },
};

/** The suites the `cluster` project runs on the cluster: a representative set of store, SCIM and sync. */
const CLUSTER_SUITES = [
  "test/store/outbox.test.ts", "test/store/dispatch-marks.test.ts", "test/store/key-space.test.ts", "test/store/resync-store.test.ts",
  "test/scim/users.test.ts", "test/scim/groups.test.ts", "test/scim/paging.test.ts", "test/scim/auth-failures.test.ts",
  "test/sync/workforce.test.ts", "test/sync/workforce-groups.test.ts", "test/sync/embed-user.test.ts", "test/sync/embed-groups.test.ts",
  "test/sync/resync.test.ts", "test/sync/sweeper.test.ts", "test/sync/rate-limit.test.ts", "test/sync/sync-state.test.ts",
  "test/sync/worker-blocking.test.ts", "test/sync/slot-handoff.test.ts", "test/sync/outbox-signal.test.ts",
  "test/cluster/*.test.ts",
];

module.exports = {
  testTimeout: 30000,
  maxWorkers: 2,
  // a global option (Jest reads no per-project sequencer)
  testSequencer: "<rootDir>/test/helpers/sequencer.js",
  projects: [
    { ...shared, displayName: "fast", roots: ["<rootDir>/test"], testPathIgnorePatterns: ["/node_modules/", "<rootDir>/test/fault/", "<rootDir>/test/cluster/"] },
    // 3 workers: the fault suites mostly wait on child processes and wall-clock scenarios, not on the CPU
    { ...shared, displayName: "fault", roots: ["<rootDir>/test/fault"] },
    ...(process.env.JEST_CLUSTER === "1" ? [{
      ...shared, displayName: "cluster", roots: ["<rootDir>/test"], testMatch: CLUSTER_SUITES.map((s) => `<rootDir>/${s}`),
      globalSetup: "<rootDir>/test/cluster/global-setup.ts", globalTeardown: "<rootDir>/test/cluster/global-teardown.ts",
    }] : []),
  ],
};
