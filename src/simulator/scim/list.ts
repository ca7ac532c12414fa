/**
 * SCIM list responses with `startIndex`/`count` paging
 * ([RFC7644§3.4.2.4](https://datatracker.ietf.org/doc/html/rfc7644#section-3.4.2.4)): 1-based `startIndex`
 * (values below 1 mean 1), `count` capped by the simulator config, `totalResults` the whole match count.
 */
import type { Request } from "express";
import type { SimConfig } from "../config";
import { SimError } from "../sim-error";

const LIST = "urn:ietf:params:scim:api:messages:2.0:ListResponse";

/** Paging parameters of a list request. */
export function readPaging(req: Request, config: SimConfig): { startIndex: number; count: number } {
  const num = (name: string, fallback: number) => {
    const raw = req.query[name];
    if (raw === undefined) return fallback;
    const n = Number(raw);
    if (typeof raw !== "string" || !Number.isInteger(n)) throw new SimError(400, `${name} must be an integer`, "invalidValue");
    return n;
  };
  const startIndex = Math.max(1, num("startIndex", 1));
  const count = Math.min(config.paging.scimMaxCount, Math.max(0, num("count", config.paging.scimDefaultCount)));
  return { startIndex, count };
}

/** One page of `all` as a ListResponse. */
export function listResponse<T>(all: T[], startIndex: number, count: number): Record<string, unknown> {
  const page = all.slice(startIndex - 1, startIndex - 1 + count);
  return { schemas: [LIST], totalResults: all.length, startIndex, itemsPerPage: page.length, Resources: page };
}
