/**
 * The admin API, on its own prefix (`/admin`) with its own token. JSON.
 *   POST /admin/directories/:id/resync   start a full resync (202; 409 while one runs)
 *   GET  /admin/directories/:id/resync   progress and final summary of the latest resync
 */
import express, { type Router } from "express";
import type { Redis } from "ioredis";
import type { Config } from "../config/schema";
import type { SyncQueues } from "../sync/queues";
import { readResync } from "../sync/resync";
import { adminAuth } from "./auth";

export interface AdminDeps {
  config: Config;
  redis: Redis;
  queues: SyncQueues;
}

/** The admin router (mount at /admin). */
export function adminRouter({ config, redis, queues }: AdminDeps): Router {
  const r = express.Router();
  const known = new Set(config.directories.map((d) => d.id));
  r.use(adminAuth(config.admin.tokenHashes));
  r.use(express.json({ limit: "64kb" }));
  r.param("id", (req, res, next, id: string) => {
    if (!known.has(id)) { res.status(404).json({ error: `unknown directory "${id}"` }); return; }
    next();
  });

  r.post("/directories/:id/resync", async (req, res) => {
    const progress = await readResync(redis, config.redis.keyPrefix, req.params.id);
    if (progress.status === "running") { res.status(409).json({ error: "a resync of this directory is running", progress }); return; }
    await queues.enqueueResync(req.params.id, "admin-api");
    res.status(202).json({ status: "queued", progress: `/admin/directories/${req.params.id}/resync` });
  });

  r.get("/directories/:id/resync", async (req, res) => {
    res.json(await readResync(redis, config.redis.keyPrefix, req.params.id));
  });
  return r;
}
