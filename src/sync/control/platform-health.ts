/** How a recorded key status reads (key-check.ts records it; the status and /metrics read it without loading the platform client). */

/** True for a recorded key status that says the platform works for the directory. */
export function platformHealthy(keyStatus: string | undefined): boolean {
  return keyStatus === "ok";
}
