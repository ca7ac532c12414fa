/**
 * The status pages (mounted under /admin, after the sign-in):
 *   GET /status                     the overview (overview-page.ts)
 *   GET /status/:id                 a directory's page (directory-page.ts)
 *   GET /status/:id/plan?list=&page= a dry run's planned changes, a page at a time (plan-page.ts)
 *   GET /live, GET /live/:id        what refreshes in place on those two pages: {"at", "regions"} (live.ts);
 *                                   `/live/:id?charts=0` leaves the charts out
 *   GET /assets/live.js             the script that does it
 */
import express, { type Router } from "express";
import type { OpsContext } from "./ops-context";
import { MinuteCounters, SERIES } from "../activity/minute-counters";
import { brakeStatus, type BrakeStatus } from "../sync/brake/brake";
import { directoryStatus, failedItems } from "./directory-status";
import { directoryBody, directoryRegions, type DirectoryCharts, type DirectoryView } from "./directory-page";
import { overviewBody, overviewRegions } from "./overview-page";
import { planBody, PLAN_LISTS, type PlanList } from "./plan-page";
import { liveScript, type LiveRegions } from "./live";
import { page } from "./layout";
import { esc } from "./html";

async function overviewData(c: OpsContext) {
  const dirs = await Promise.all(c.registry.list().map((e) => directoryStatus(c, e.dir.id)));
  const brakes = new Map<string, BrakeStatus>(await Promise.all(c.registry.list()
    .map(async (e) => [e.dir.id, await brakeStatus(c.redis, c.config.redis.keyPrefix, e.dir, 0)] as const)));
  return { dirs, brakes };
}

/** A directory's view; without `charts` (a refresh between two chart refreshes) the counters are not read. */
async function directoryData(c: OpsContext, id: string, now: number, charts = true): Promise<DirectoryView> {
  const status = await directoryStatus(c, id);
  const counters = new MinuteCounters(c.redis, c.config.redis.keyPrefix);
  const [failures, held, plan, series, brake] = await Promise.all([
    status.items.failed ? failedItems(c, id, 20) : [],
    status.resync.status === "awaiting-confirmation" ? c.resyncs.held(id, 50) : [],
    c.resyncs.plan(id),
    charts ? Promise.all(SERIES.map((s) => counters.day(id, s, now))) : undefined,
    brakeStatus(c.redis, c.config.redis.keyPrefix, c.registry.get(id)!.dir, 50),
  ]);
  return { status, failures, held, ...(plan ? { plan } : {}), ...(series ? { charts: Object.fromEntries(SERIES.map((s, i) => [s, series[i]])) as DirectoryCharts } : {}), brake };
}

const notFound = (id: string) => page("scim-bridge — not found", `<p>No directory "${esc(id)}".</p><p><a href="/admin/status">← status</a></p>`);

/** The status pages and their live endpoints. */
export function statusRoutes(c: OpsContext): Router {
  const r = express.Router();
  r.get("/assets/live.js", liveScript());
  r.get("/status", async (_req, res) => {
    const { dirs, brakes } = await overviewData(c);
    res.type("html").send(page("scim-bridge status", overviewBody(dirs, brakes, new Date()), { live: "/admin/live" }));
  });
  r.get("/live", async (_req, res) => {
    const { dirs, brakes } = await overviewData(c);
    const now = new Date();
    res.json({ at: now.toISOString(), regions: overviewRegions(dirs, brakes, now) } satisfies LiveRegions);
  });
  r.get("/status/:id", async (req, res, next) => {
    const id = req.params.id;
    if (id === "new") return next();
    if (!c.registry.get(id)) { res.status(404).type("html").send(notFound(id)); return; }
    const now = new Date();
    res.type("html").send(page(`scim-bridge — ${id}`, directoryBody(await directoryData(c, id, now.getTime()), now), { live: `/admin/live/${encodeURIComponent(id)}` }));
  });
  r.get("/live/:id", async (req, res) => {
    const id = req.params.id;
    if (!c.registry.get(id)) { res.status(404).json({ error: `unknown directory "${id}"` }); return; }
    const now = new Date();
    // `?charts=0`: the figures without the charts (they change by the minute: the script asks for them once a minute)
    res.json({ at: now.toISOString(), regions: directoryRegions(await directoryData(c, id, now.getTime(), req.query.charts !== "0"), now) } satisfies LiveRegions);
  });
  r.get("/status/:id/plan", async (req, res) => {
    const id = req.params.id;
    if (!c.registry.get(id)) { res.status(404).type("html").send(notFound(id)); return; }
    const plan = await c.resyncs.plan(id);
    if (!plan) { res.status(404).type("html").send(page("scim-bridge — no dry run", `<p>No dry run of ${esc(id)} is kept (none yet, or older than 7 days).</p><p><a href="/admin/status/${esc(id)}">← ${esc(id)}</a></p>`)); return; }
    const list = (PLAN_LISTS as readonly string[]).includes(String(req.query.list)) ? (req.query.list as PlanList) : "deprovision";
    res.type("html").send(page(`scim-bridge — dry run of ${id}`, planBody(plan, list, Number(req.query.page) || 1)));
  });
  return r;
}
