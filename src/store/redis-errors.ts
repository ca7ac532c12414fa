/**
 * Turns a Redis connection error into a sentence an operator can act on: which TLS check failed
 * (certificate not trusted, host name not in the certificate, no TLS on the other side), a refused
 * connection, an unknown host, wrong credentials. Used by `waitReady` when the bridge starts.
 */

/** Node's codes for a certificate chain the client does not trust (OpenSSL X509_V_ERR_* names). */
const CERT_UNTRUSTED = new Set([
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE", "SELF_SIGNED_CERT_IN_CHAIN", "DEPTH_ZERO_SELF_SIGNED_CERT",
  "UNABLE_TO_GET_ISSUER_CERT", "UNABLE_TO_GET_ISSUER_CERT_LOCALLY", "CERT_UNTRUSTED", "CERT_SIGNATURE_FAILURE",
  "CERT_REJECTED", "INVALID_CA", "CERT_CHAIN_TOO_LONG",
]);
const CERT_DATES = new Set(["CERT_HAS_EXPIRED", "CERT_NOT_YET_VALID"]);

interface NodeishError extends Error {
  code?: string;
  /** ioredis Cluster: "Failed to refresh slots cache." carries the last node's error here. */
  lastNodeError?: Error;
}

/** The error that says most: a cluster's wrapper gives way to the node error it carries. */
function root(err: Error): NodeishError {
  const e = err as NodeishError;
  return e.lastNodeError ? root(e.lastNodeError) : e;
}

function what(e: NodeishError): string {
  return e.code && !e.message.includes(e.code) ? `${e.code}: ${e.message}` : e.message;
}

/** True for failures retrying will not fix: the start fails at once with `describeRedisError`. */
export function isFatalRedisError(err: Error): boolean {
  const e = root(err);
  return CERT_UNTRUSTED.has(e.code ?? "") || CERT_DATES.has(e.code ?? "") || e.code === "ERR_TLS_CERT_ALTNAME_INVALID"
    || isWrongProtocol(e) || /WRONGPASS|NOAUTH|NOPERM|invalid password/i.test(e.message);
}

function isWrongProtocol(e: NodeishError): boolean {
  return e.code === "EPROTO" || /wrong version number|packet length too long|unknown protocol|record layer failure/i.test(e.message);
}

/** A sentence naming what failed and how to fix it; `tls`: the connection used TLS. */
export function describeRedisError(err: Error, tls: boolean): string {
  const e = root(err);
  const code = e.code ?? "";
  if (CERT_UNTRUSTED.has(code)) {
    return `TLS certificate verify failed (${what(e)}): the server's certificate is not signed by a CA this process trusts; `
      + "set redis.tls.caFile (REDIS_TLS_CA_FILE) to the PEM file of the CA that signed it";
  }
  if (CERT_DATES.has(code)) return `TLS certificate verify failed (${what(e)}): the server's certificate is outside its validity dates`;
  if (code === "ERR_TLS_CERT_ALTNAME_INVALID") {
    return `TLS hostname mismatch (${what(e)}): connect by a name the certificate carries, or set redis.tls.servername (REDIS_TLS_SERVERNAME) to it`;
  }
  if (isWrongProtocol(e)) {
    return `TLS handshake failed (${what(e)}): the server does not speak TLS on this port; use redis:// or the server's TLS port`;
  }
  if (/WRONGPASS|NOAUTH|invalid password/i.test(e.message)) {
    return `authentication failed (${e.message}): check the user name and password in redis.url (REDIS_URL)`;
  }
  if (/NOPERM/.test(e.message)) return `the Redis user lacks a permission the bridge needs (${e.message})`;
  if (code === "ECONNREFUSED") return `connection refused (${what(e)}): is Redis running and listening on that port?`;
  if (code === "ENOTFOUND" || code === "EAI_AGAIN") return `host name not found (${what(e)})`;
  if (code === "ECONNRESET" && !tls) {
    return `connection reset (${what(e)}); a port that expects TLS does this to a plain redis:// client: use rediss://`;
  }
  return what(e);
}
