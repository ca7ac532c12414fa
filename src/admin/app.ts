/**
 * The admin API, on its own prefix (`/admin`) with its own token. JSON.
 *   POST /admin/directories/:id/resync   start a full resync (202; 409 while one runs)
 *   GET  /admin/directories/:id/resync   progress and final summary of the latest resync
 *   GET  /admin/directories/:id/external-users   embed: the account's external users against the limit,
 *                                                 with `warning` at 90% (404 for a workforce directory)
 */
import express, { type Router } from "express";
import type { Redis } from "ioredis";
import type { Config } from "../config/schema";
import { ExternalUserUsage } from "../sync/external-user-usage";
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

  const usage = new ExternalUserUsage(redis, config.redis.keyPrefix);
  r.get("/directories/:id/external-users", async (req, res) => {
    const dir = config.directories.find((d) => d.id === req.params.id)!;
    if (!dir.embed) { res.status(404).json({ error: `directory "${dir.id}" is not an embed directory` }); return; }
    res.json(await usage.report(dir.platform.baseUrl, dir.embed.externalUserLimit));
  });
  return r;
}
