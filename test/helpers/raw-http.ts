/**
 * An HTTP request with nothing added: exact bytes, exact headers (no Content-Type unless given), the
 * path sent as written (malformed percent-escapes included). For what supertest would "fix" on the way.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { Express } from "express";

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  body: unknown;
}

export interface RawRequest {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: Buffer | string;
}

/** Sends one request to `app` (on a throw-away listener) or to `baseUrl` (a running server). */
export async function rawRequest(target: Express | string, req: RawRequest): Promise<RawResponse> {
  let server: http.Server | undefined;
  let base: URL;
  if (typeof target === "string") {
    base = new URL(target);
  } else {
    server = http.createServer(target);
    await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
    base = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  }
  try {
    return await new Promise<RawResponse>((resolve, reject) => {
      const body = req.body === undefined ? undefined : Buffer.isBuffer(req.body) ? req.body : Buffer.from(req.body, "utf8");
      const headers: Record<string, string> = { ...req.headers };
      if (body) headers["Content-Length"] = String(body.length);
      const r = http.request({ host: base.hostname, port: base.port, method: req.method, path: req.path, headers, agent: false }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          let parsed: unknown;
          try { parsed = JSON.parse(text); } catch { parsed = undefined; }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body: parsed });
        });
        res.on("error", reject);
      });
      r.on("error", reject);
      r.end(body);
    });
  } finally {
    if (server) await new Promise<void>((resolve) => server!.close(() => resolve()));
  }
}
