/**
 * Small server-rendered SVG charts of the last 24 hours (no front-end build, no script): one bar per
 * 15 minutes, the bucket's total (counters) or highest value (gauges), each bar with a <title> that a
 * browser shows on hover.
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

function fmt(n: number, unit: string): string {
  if (unit === "ms") return n >= 60_000 ? `${(n / 60_000).toFixed(1)} min` : n >= 1000 ? `${(n / 1000).toFixed(1)} s` : `${n} ms`;
  return `${n}${unit ? ` ${unit}` : ""}`;
}

/** An SVG bar chart of `perMinute` (oldest first, ending at `now`). */
export function chart(title: string, perMinute: number[], fold: "sum" | "max", now: Date, unit = "", color = "#0969da"): string {
  const values = buckets(perMinute, fold);
  const w = 288;
  const h = 48;
  const bw = w / values.length;
  const top = Math.max(1, ...values);
  const total = fold === "sum" ? values.reduce((a, b) => a + b, 0) : Math.max(0, ...values);
  const bars = values.map((v, i) => {
    const bh = v === 0 ? 0 : Math.max(1, Math.round((v / top) * (h - 2)));
    const end = new Date(now.getTime() - (values.length - 1 - i) * BUCKET * 60_000);
    const start = new Date(end.getTime() - BUCKET * 60_000);
    const label = `${start.toISOString().slice(11, 16)}–${end.toISOString().slice(11, 16)} UTC: ${fmt(v, unit)}`;
    return `<rect x="${(i * bw).toFixed(1)}" y="${h - bh}" width="${Math.max(1, bw - 0.5).toFixed(1)}" height="${bh}" fill="${color}"><title>${esc(label)}</title></rect>`;
  }).join("");
  return `<figure class="chart" data-chart="${esc(title)}"><figcaption>${esc(title)} <span class="msg">${fold === "sum" ? "24 h total" : "24 h peak"} ${esc(fmt(total, unit))}</span></figcaption>
<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}" role="img" aria-label="${esc(title)}, last 24 hours">
<rect x="0" y="0" width="${w}" height="${h}" fill="#f6f8fa"/>${bars}</svg></figure>`;
}
