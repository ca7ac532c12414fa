/**
 * Fault settings of the platform simulator, as one zod schema. The same shape is accepted in the
 * simulator config (`faults`) and at runtime by `PUT /_sim/faults`. Faults apply to every `/api` request
 * (never to `/_sim`), in this order: outage, dropped connection, rate limit, injected error, latency.
 */
import { z } from "zod";

/** Injected 5xx statuses. */
export const faultStatusSchema = z.union([z.literal(500), z.literal(502), z.literal(503)]);

export const faultsSchema = z.strictObject({
  /** Added before every response: `fixedMs` plus a uniform random 0..`jitterMs`. */
  latency: z
    .strictObject({ fixedMs: z.number().int().min(0).default(0), jitterMs: z.number().int().min(0).default(0) })
    .prefault({}),
  /**
   * Rate limit per API key (per client address when no credential is sent): at most `max` requests in any
   * sliding window of `durationMs`; above it 429 with `Retry-After` in whole seconds (the time until a slot
   * frees, at least 1, or `retryAfterSeconds` when set). `null`: no limit. "Rate limits: not shown."
   */
  rateLimit: z
    .strictObject({
      max: z.number().int().positive(),
      durationMs: z.number().int().positive(),
      retryAfterSeconds: z.number().int().min(0).optional(),
      /** `Retry-After` as delay-seconds (default) or as an HTTP-date (RFC 9110 allows both). */
      retryAfterFormat: z.enum(["seconds", "http-date"]).default("seconds"),
    })
    .nullable()
    .default(null),
  /** A share (`rate`, 0..1) of requests, and additionally the `next` N requests, answer one of `statuses`. */
  errors: z
    .strictObject({
      rate: z.number().min(0).max(1).default(0),
      next: z.number().int().min(0).default(0),
      statuses: z.array(faultStatusSchema).min(1).default([500, 502, 503]),
    })
    .prefault({}),
  /** A share (`rate`) of requests, and the `next` N requests, get their socket destroyed without an answer. */
  drop: z.strictObject({ rate: z.number().min(0).max(1).default(0), next: z.number().int().min(0).default(0) }).prefault({}),
  /**
   * Full outage: every request answers 503 (`mode: "503"`, with `Retry-After` when `retryAfterSeconds` is set)
   * or is dropped (`mode: "drop"`) until `until` (ISO date-time or epoch ms), or for `forSeconds` from the
   * moment the setting is applied. `null`: no outage.
   */
  outage: z
    .strictObject({
      until: z.union([z.iso.datetime({ offset: true }), z.number().int().positive()]).optional(),
      forSeconds: z.number().positive().optional(),
      mode: z.enum(["503", "drop"]).default("503"),
      retryAfterSeconds: z.number().int().min(0).optional(),
    })
    .refine((o) => (o.until === undefined) !== (o.forSeconds === undefined), "give exactly one of until / forSeconds")
    .nullable()
    .default(null),
});

/** Fault settings as written (before defaults). */
export type FaultsInput = z.input<typeof faultsSchema>;
/** Fault settings after parsing. */
export type FaultSettings = z.output<typeof faultsSchema>;
