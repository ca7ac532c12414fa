/**
 * Jest runs TypeScript through @swc/jest (no type-check: `npm run typecheck` does that, see STACK.md §2).
 * Every suite talks to the real Redis at REDIS_URL (default redis://127.0.0.1:6379) under its own key prefix.
 * @type {import('jest').Config}
 */
module.exports = {
  testEnvironment: "node",
  roots: ["<rootDir>/test"],
  testMatch: ["**/*.test.ts"],
  transform: {
    "^.+\\.ts$": ["@swc/jest", {
      jsc: { parser: { syntax: "typescript" }, target: "es2022" },
      module: { type: "commonjs" },
    }],
  },
  testTimeout: 30000,
  maxWorkers: 2,
};
