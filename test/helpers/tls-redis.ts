/**
 * A private redis-server that speaks TLS (and plain TCP on a second port), with a throw-away CA made by
 * `openssl`: the server's certificate names only `redis.test`, so connecting to 127.0.0.1 without a
 * servername is a host name mismatch. Started in a temp dir of the ProcessSet, stopped by PID with it.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { freePort } from "./free-port";
import { untilRedisAnswers, type ProcessSet } from "./processes";

export interface TlsRedis {
  /** Port that speaks TLS only. */
  tlsPort: number;
  /** Port that speaks plain TCP only. */
  plainPort: number;
  /** PEM file of the CA that signed the server certificate. */
  caFile: string;
  /** The one name the server certificate carries. */
  servername: string;
}

function openssl(dir: string, ...args: string[]): void {
  execFileSync("openssl", args, { cwd: dir, stdio: "pipe" });
}

/** Makes the CA and server certificate, starts redis-server, waits until its plain port answers. */
export async function startTlsRedis(set: ProcessSet): Promise<TlsRedis> {
  const dir = set.tempDir("redis-tls");
  const servername = "redis.test";
  openssl(dir, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=scim-bridge test CA", "-keyout", "ca.key", "-out", "ca.crt");
  openssl(dir, "req", "-newkey", "rsa:2048", "-nodes", "-subj", `/CN=${servername}`, "-keyout", "server.key", "-out", "server.csr");
  fs.writeFileSync(path.join(dir, "san.ext"), `subjectAltName=DNS:${servername}\n`);
  openssl(dir, "x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial", "-days", "2", "-extfile", "san.ext", "-out", "server.crt");
  const [tlsPort, plainPort] = [await freePort(), await freePort()];
  const proc = set.spawn(`redis-server-tls:${tlsPort}`, process.env.REDIS_SERVER_BIN || "redis-server", [
    "--port", String(plainPort), "--tls-port", String(tlsPort), "--bind", "127.0.0.1", "--dir", dir, "--save", "", "--appendonly", "no",
    "--tls-cert-file", path.join(dir, "server.crt"), "--tls-key-file", path.join(dir, "server.key"),
    "--tls-ca-cert-file", path.join(dir, "ca.crt"), "--tls-auth-clients", "no",
  ]);
  await untilRedisAnswers(proc, plainPort, "redis-server (TLS)", 15000);
  return { tlsPort, plainPort, caFile: path.join(dir, "ca.crt"), servername };
}
