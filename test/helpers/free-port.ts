/**
 * A TCP port nothing listens on right now (for private servers started by tests).
 *
 * A port is free only until someone takes it, and the test binds it some time after this check. Ports
 * that the kernel hands out itself (its ephemeral range, 32768–60999 by default) are taken all the time
 * meanwhile: by every server of a parallel test that listens on port 0, and by outgoing connections. One
 * of five `npm test` runs lost the demo's port that way ("listen EADDRINUSE"). So the port is drawn at
 * random from 10000–19999, below that range, where only another call of this function (a 1-in-10,000
 * draw) can take it; a Redis Cluster node's bus port, its port + 10000 (20000–29999, checked free as
 * well), is below that range too. Where the kernel's range reaches down there (not Linux's default), the
 * kernel picks the port (port 0), as before.
 */
import fs from "node:fs";
import net from "node:net";

const LOW = 10000;
const SPAN = 10000;
/** Redis Cluster's bus port is the node's port + 10000 (`cluster-port` unset). */
const BUS_OFFSET = 10000;

function ephemeralLow(): number {
  try {
    return Number(fs.readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]);
  } catch {
    return 0; // not Linux: no range known
  }
}

const DRAWN = ephemeralLow() >= LOW + SPAN + BUS_OFFSET;

/** Listens on `port` on loopback and closes again: the port it got, or undefined when `port` was taken. */
function probe(port: number): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once("error", (err: NodeJS.ErrnoException) => (err.code === "EADDRINUSE" || err.code === "EACCES" ? resolve(undefined) : reject(err)));
    srv.listen(port, "127.0.0.1", () => {
      const got = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(got));
    });
  });
}

export async function freePort(): Promise<number> {
  if (DRAWN) {
    for (let i = 0; i < 50; i++) {
      const port = await probe(LOW + Math.floor(Math.random() * SPAN));
      // its bus port must be free as well, should the port serve a cluster node (RabbitMQ's 25672 is in there)
      if (port !== undefined && await probe(port + BUS_OFFSET) !== undefined) return port;
    }
  }
  const port = await probe(0);
  if (port === undefined) throw new Error("no free port on 127.0.0.1");
  return port;
}
