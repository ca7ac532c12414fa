/**
 * Issue 14 §4: pause reasons say each thing once ("credential missing, malformed or expired: credential
 * missing, malformed or expired (platform said: …)" and "key not scoped to deployment 2: key not scoped to
 * deployment 2" were the reasons before).
 */
import { unauthorizedReason, unscopedReason } from "../../src/sync/control/pause-reason";

const MEANING = "credential missing, malformed or expired";

it("should say what a 401 means once, then only what the platform's message adds", () => {
  expect(unauthorizedReason(`${MEANING}: key expired`)).toBe(`platform answered 401 (${MEANING}): key expired`);
  expect(unauthorizedReason(`${MEANING} (platform said: ${MEANING}: unknown key)`)).toBe(`platform answered 401 (${MEANING}): unknown key`);
  expect(unauthorizedReason(MEANING)).toBe(`platform answered 401 (${MEANING})`);
  expect(unauthorizedReason("Invalid token")).toBe(`platform answered 401 (${MEANING}): Invalid token`);
});

it("should say that the key does not cover the deployment once", () => {
  expect(unscopedReason(2, "key not scoped to deployment 2")).toBe("key not scoped to deployment 2");
  expect(unscopedReason(2, "Forbidden")).toBe("key not scoped to deployment 2: Forbidden");
});
