/**
 * Config values that name places on the network: Redis nodes as `host:port`, and the proxies whose
 * X-Forwarded-For the server believes (Express `trust proxy`).
 */
import { isIP } from "node:net";
import { z } from "zod";

/** `host:port` of a Redis node or sentinel (IPv6 in brackets: `[::1]:7000`). */
export const hostPort = z.string().regex(/^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):\d{1,5}$/, "expected host:port, e.g. redis-1.internal:6379");

/** A trustProxy list names addresses, subnets or proxy-addr's named ranges (a number or boolean passes). */
export function isTrustProxyList(v: unknown): boolean {
  if (typeof v !== "string" && !Array.isArray(v)) return true;
  const items = (Array.isArray(v) ? v : v.split(",")).map((x) => String(x).trim()).filter(Boolean);
  return items.length > 0 && items.every((x) => ["loopback", "linklocal", "uniquelocal"].includes(x) || isIpOrSubnet(x));
}

function isIpOrSubnet(x: string): boolean {
  const [ip, bits, extra] = x.split("/");
  if (extra !== undefined || !isIP(ip)) return false;
  if (bits === undefined) return true;
  if (/^\d+$/.test(bits)) return Number(bits) <= (isIP(ip) === 4 ? 32 : 128);
  return isIP(bits) === 4; // a netmask: 10.0.0.0/255.0.0.0
}
