/**
 * Small server-rendered SVG charts of the last 24 hours (no front-end build, nothing fetched): one bar per
 * 15 minutes, the bucket's total (counters) or highest value (gauges), with a time axis (UTC hours), the
 * scale's top value in the series' unit, and each bar's time span and value in a <title> that a browser
 * shows on hover.
 */
import { esc } from "./html";

const BUCKET = 15;

/** Folds 1440 per-minute values into 96 buckets of 15 minutes. */
export function buckets(perMinute: number[], fold: "sum" | "max"): number[] {
  const out: number[] = [];
  for (let i = 0; i < perMinute.length; i += BUCKET) {
    const part = perMinute.slice(i, i + BUCKET);
    out.push(fold === "sum" ? part.reduce((a, b) => a + b, 0) : Math.max(0, ...part));
  }
  return out;
}

/** A value in its unit: "1.5 s" for 1500 ms, "42 calls". */
export function fmt(n: number, unit: string): string {
  if (unit === "ms") return n >= 60_000 ? `${(n / 60_000).toFixed(1)} min` : n >= 1000 ? `${(n / 1000).toFixed(1)} s` : `${n} ms`;
  return `${n.toLocaleString("en-US")}${unit ? ` ${unit}` : ""}`;
}

const hhmm = (d: Date) => d.toISOString().slice(11, 16);

/** An SVG bar chart of `perMinute` (oldest first, ending at `now`); `unit` names what is counted. */
export function chart(title: string, perMinute: number[], fold: "sum" | "max", now: Date, unit = "", color = "#0969da"): string {
  const values = buckets(perMinute, fold);
  const left = 6;
  const plotW = 288;
  const plotH = 56;
  const w = left + plotW + 8;
  const h = plotH + 18;
  const bw = plotW / Math.max(1, values.length);
  const top = Math.max(1, ...values);
  const total = fold === "sum" ? values.reduce((a, b) => a + b, 0) : Math.max(0, ...values);
  const per = fold === "sum" ? " per 15 min" : "";
  const bars = values.map((v, i) => {
    const bh = v === 0 ? 0 : Math.max(1, Math.round((v / top) * (plotH - 2)));
    const end = new Date(now.getTime() - (values.length - 1 - i) * BUCKET * 60_000);
    const start = new Date(end.getTime() - BUCKET * 60_000);
    const label = `${hhmm(start)}–${hhmm(end)} UTC: ${fmt(v, unit)}`;
    // a full-height transparent band under each bar, so a hover anywhere over its time shows the value
    return `<g><title>${esc(label)}</title><rect x="${(left + i * bw).toFixed(1)}" y="0" width="${bw.toFixed(1)}" height="${plotH}" fill="transparent"/>`
      + (bh ? `<rect x="${(left + i * bw).toFixed(1)}" y="${plotH - bh}" width="${Math.max(1, bw - 0.5).toFixed(1)}" height="${bh}" fill="${color}"/>` : "") + "</g>";
  }).join("");
  // the time axis: every 6 hours back from now, in UTC
  const ticks = [24, 18, 12, 6, 0].map((hoursAgo) => {
    const x = left + plotW - (hoursAgo * 60 / BUCKET) * bw;
    const at = hoursAgo === 0 ? "now" : hhmm(new Date(now.getTime() - hoursAgo * 3600_000));
    const anchor = hoursAgo === 24 ? "start" : hoursAgo === 0 ? "end" : "middle";
    return `<line x1="${x.toFixed(1)}" y1="${plotH}" x2="${x.toFixed(1)}" y2="${plotH + 3}" stroke="#8c959f"/><text x="${x.toFixed(1)}" y="${plotH + 14}" text-anchor="${anchor}">${at}</text>`;
  }).join("");
  const axes = `<line x1="${left}" y1="${plotH}" x2="${left + plotW}" y2="${plotH}" stroke="#8c959f"/><line x1="${left}" y1="0" x2="${left}" y2="${plotH}" stroke="#8c959f"/>`
    // the scale: the top of the plot is this much (its bottom is 0)
    + `<line x1="${left}" y1="0.5" x2="${left + plotW}" y2="0.5" stroke="#d0d7de" stroke-dasharray="2 3"/><text x="${left + 3}" y="10" data-scale>${esc(fmt(top, unit))}</text>`;
  return `<figure class="chart" data-chart="${esc(title)}"><figcaption><strong>${esc(title)}</strong>${esc(per)}, UTC <span class="msg">${fold === "sum" ? "24 h total" : "24 h peak"} ${esc(fmt(total, unit))}</span></figcaption>
<svg class="chart-svg" xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}" role="img" aria-label="${esc(title)}, last 24 hours, UTC">
<rect x="${left}" y="0" width="${plotW}" height="${plotH}" fill="#f6f8fa"/>${bars}${axes}${ticks}</svg></figure>`;
}
