/**
 * Jest runs TypeScript through @swc/jest (no type-check: `npm run typecheck` does that, see STACK.md §2).
 * Every suite talks to the real Redis at REDIS_URL (default redis://127.0.0.1:6379) under its own key prefix.
 *
 * Projects (`npm test` runs them one after the other: `jest --selectProjects fast`, then `fault`):
 *   fast   every suite except test/fault
 *   fault  test/fault: simulator, bridge and redis-server child processes that the tests SIGKILL
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
  projects: [
    { ...shared, displayName: "fast", roots: ["<rootDir>/test"], testPathIgnorePatterns: ["/node_modules/", "<rootDir>/test/fault/"] },
    { ...shared, displayName: "fault", roots: ["<rootDir>/test/fault"] },
  ],
};
