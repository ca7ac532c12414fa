// Container health check (Dockerfile HEALTHCHECK). The server role answers GET /healthz on PORT
// (default 8080); the worker role has no HTTP listener, so for it a running process is healthy.
// Uses node's fetch: slim images have no curl.
const fs = require("node:fs");

const argv = (() => {
  try {
    return fs.readFileSync("/proc/1/cmdline", "utf8").split("\0");
  } catch {
    return [];
  }
})();
const role = argv.find((a) => a === "server" || a === "worker" || a === "all") ?? process.env.ROLE ?? "all";
if (role === "worker") process.exit(0);

const port = process.env.PORT || "8080";
fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(4000) })
  .then((res) => process.exit(res.ok ? 0 : 1))
  .catch(() => process.exit(1));
