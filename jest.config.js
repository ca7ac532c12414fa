/**
 * Jest runs TypeScript through @swc/jest (no type-check: `npm run typecheck` does that, see STACK.md §2).
 * Every suite talks to the real Redis at REDIS_URL (default redis://127.0.0.1:6379) under its own key prefix.
 *
 * Projects (`npm test` runs them one after the other: `jest --selectProjects fast`, then `fault`):
 *   fast   every suite except test/fault
 *   fault  test/fault: simulator, bridge and redis-server child processes that the tests SIGKILL; run
 *          with 3 workers (package.json), the 60 s outage suite first (test/helpers/sequencer.js)
 *   cluster  (only with JEST_CLUSTER=1: `npm run test:cluster`) a local Redis Cluster of 3 masters + 3
 *          replicas started by test/cluster/global-setup.ts; every suite of `fast` and `fault` runs on it
 *          unchanged (the helpers connect through the cluster), plus test/cluster: a master killed
 *          mid-push, and Sentinel; except the suites that drive Debian chromium (test/admin/*-page(s)),
 *          whose pages read through the same admin routes the cluster run already covers
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
      // every suite of `fast` and `fault` (the selection it had before missed directory deletes, which
      // failed on a cluster), plus test/cluster; suites that start a redis-server of their own keep it.
      // The browser suites stay out: a page renders what the admin routes answer, and those routes, with
      // every store and sync path under them, run here; the browser's ~80 s would only redraw them
      ...shared, displayName: "cluster", roots: ["<rootDir>/test"],
      testPathIgnorePatterns: ["/node_modules/", "<rootDir>/test/admin/status-page\\.test\\.ts$", "<rootDir>/test/admin/directory-pages\\.test\\.ts$", "<rootDir>/test/admin/brake-page\\.test\\.ts$"],
      globalSetup: "<rootDir>/test/cluster/global-setup.ts", globalTeardown: "<rootDir>/test/cluster/global-teardown.ts",
    }] : []),
  ],
};
