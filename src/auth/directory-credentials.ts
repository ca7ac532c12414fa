/**
 * Checks the secrets a directory's callers present, against the registry's view of the directory: SCIM
 * bearer tokens (the config file's hashes, tokens made through the admin API, OAuth access tokens) and OAuth
 * client secrets. Only SHA-256 hashes are kept; every hash is compared in constant time without an early
 * exit, and an expired credential fails like a wrong one.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { DirectoryEntry } from "../directories/registry";
import type { CredentialKind } from "../directories/directory-records";

/** What the checks read and write in Redis: OAuth access tokens, and a credential's last use. */
export interface CredentialRecords {
  accessTokenValid(dir: string, tokenHash: string): Promise<boolean>;
  touch(dir: string, credentialId: string, at: string): Promise<void>;
}

interface Candidate { hash: Buffer; id?: string; live: boolean; label: string }

const DUMMY = Buffer.alloc(32);
/** Last-use times are written at most this often per credential. */
const TOUCH_EVERY_MS = 60_000;

function sha256(s: string): Buffer {
  return createHash("sha256").update(s, "utf8").digest();
}

/** The credential checks of every directory the registry knows (`entry` looks one up as it is now). */
export class DirectoryCredentials {
  private readonly touched = new Map<string, number>();

  constructor(private readonly entry: (id: string) => DirectoryEntry | undefined, private readonly records?: CredentialRecords) {}

  /**
   * Is `token` a live SCIM credential of directory `id`: a config-file token hash, an unexpired token made
   * through the admin API, or an unexpired OAuth access token of this directory. A directory that does
   * not exist costs the same work (a dummy comparison, the access-token look-up), so a wrong token's
   * answer time does not tell whether the directory exists.
   */
  async authenticate(id: string, token: string | undefined): Promise<boolean> {
    return (await this.authenticateAs(id, token)) !== undefined;
  }

  /** As `authenticate`, resolving with the token's name (see `tokenLabel`) when it is valid, else undefined. */
  async authenticateAs(id: string, token: string | undefined): Promise<string | undefined> {
    const entry = this.entry(id);
    const match = this.match(entry, "token", token);
    if (match) {
      if (match.id) this.touch(id, match.id);
      return match.label;
    }
    if (token === undefined || !this.records) return undefined;
    // the same Redis look-up whether the directory exists or not: the answer's timing must not tell
    const valid = await this.records.accessTokenValid(id, sha256(token).toString("hex"));
    return entry && valid ? "OAuth access token" : undefined;
  }

  /**
   * The name of the token `token` is among directory `id`'s, for the request log: a config-file token by
   * its place, a token made by the admin API by its label (marked when expired), else "unknown token"
   * (an OAuth access token, which is not kept by hash here, shows as such when `authenticated`).
   */
  tokenLabel(id: string, token: string | undefined, authenticated: boolean): string {
    if (token === undefined) return "no token";
    const entry = this.entry(id);
    const digest = sha256(token);
    const hashes = entry?.dir.tokenHashes ?? [];
    for (let i = 0; i < hashes.length; i++) if (timingSafeEqual(Buffer.from(hashes[i], "hex"), digest)) return `config token #${i + 1}`;
    for (const c of entry?.credentials ?? []) {
      if (c.kind !== "token" || !timingSafeEqual(Buffer.from(c.hash, "hex"), digest)) continue;
      const expired = !!c.expiresAt && Date.parse(c.expiresAt) <= Date.now();
      return `${c.label || c.id}${expired ? " (expired)" : ""}`;
    }
    return authenticated ? "OAuth access token" : "unknown token";
  }

  /** The live client secret of directory `clientId` that `secret` is, if any (OAuth client authentication). */
  authenticateClient(clientId: string, secret: string | undefined): boolean {
    const match = this.match(this.entry(clientId), "client-secret", secret);
    if (match?.id) this.touch(clientId, match.id);
    return !!match;
  }

  private match(entry: DirectoryEntry | undefined, kind: CredentialKind, secret: string | undefined): Candidate | undefined {
    const now = Date.now();
    const candidates: Candidate[] = [];
    if (entry && kind === "token") entry.dir.tokenHashes.forEach((h, i) => candidates.push({ hash: Buffer.from(h, "hex"), live: true, label: `config token #${i + 1}` }));
    for (const c of entry?.credentials ?? []) {
      if (c.kind === kind) candidates.push({ hash: Buffer.from(c.hash, "hex"), id: c.id, live: !c.expiresAt || Date.parse(c.expiresAt) > now, label: c.label || c.id });
    }
    const digest = sha256(secret ?? "");
    let found: Candidate | undefined;
    for (const c of candidates) {
      const eq = timingSafeEqual(c.hash, digest);
      if (eq && c.live && !found) found = c;
    }
    if (candidates.length === 0) timingSafeEqual(DUMMY, digest);
    return secret === undefined ? undefined : found;
  }

  /** Records a credential's last use (at most once a minute per credential; never blocks the request). */
  private touch(dir: string, credentialId: string): void {
    if (!this.records) return;
    const key = `${dir}\0${credentialId}`;
    const now = Date.now();
    if (now - (this.touched.get(key) ?? 0) < TOUCH_EVERY_MS) return;
    this.touched.set(key, now);
    this.records.touch(dir, credentialId, new Date(now).toISOString()).catch(() => this.touched.delete(key));
  }
}
