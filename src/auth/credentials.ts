/**
 * Making and describing credentials of a directory: SCIM tokens and OAuth client secrets. The secret is
 * random (32 bytes, base64url), answered once, and only its SHA-256 is stored. Several live credentials
 * per directory make rotation seamless: make the new one, switch the IdP, then revoke the old one.
 */
import { randomBytes } from "node:crypto";
import { hashToken } from "./token";
import type { CredentialKind, CredentialRecord } from "../directories/directory-records";

export interface NewCredential {
  record: CredentialRecord;
  /** The secret itself: shown once, never stored. */
  secret: string;
}

/** What the admin API shows of a credential: never the secret nor its hash. */
export interface CredentialView {
  id: string;
  label: string;
  createdAt: string | null;
  expiresAt: string | null;
  lastUsedAt: string | null;
  expired: boolean;
  source: "config" | "runtime";
}

export type CredentialInput = { label?: unknown; expiresAt?: unknown; expiresInDays?: unknown };

/** Checks `{label, expiresAt | expiresInDays}`; a message for the operator, or the parsed values. */
export function parseCredentialInput(body: CredentialInput | undefined, now = new Date()): { label: string; expiresAt?: string } | string {
  const label = body?.label ?? "";
  if (typeof label !== "string" || label.length > 100) return "label: expected text of at most 100 characters";
  if (body?.expiresAt !== undefined && body?.expiresInDays !== undefined) return "give expiresAt or expiresInDays, not both";
  let expiresAt: string | undefined;
  if (body?.expiresInDays !== undefined) {
    const d = Number(body.expiresInDays);
    if (!Number.isFinite(d) || d <= 0 || d > 3650) return "expiresInDays: expected a number of days between 0 and 3650";
    expiresAt = new Date(now.getTime() + d * 86400_000).toISOString();
  } else if (body?.expiresAt !== undefined) {
    const t = typeof body.expiresAt === "string" ? Date.parse(body.expiresAt) : NaN;
    if (!Number.isFinite(t)) return "expiresAt: expected an ISO 8601 date-time such as 2027-01-31T00:00:00Z";
    if (t <= now.getTime()) return "expiresAt: must be in the future";
    expiresAt = new Date(t).toISOString();
  }
  return { label, ...(expiresAt ? { expiresAt } : {}) };
}

/** A fresh credential of `kind`. */
export function newCredential(kind: CredentialKind, label: string, expiresAt?: string, now = new Date()): NewCredential {
  const secret = randomBytes(32).toString("base64url");
  const record: CredentialRecord = {
    id: randomBytes(6).toString("hex"), kind, label, hash: hashToken(secret), createdAt: now.toISOString(), ...(expiresAt ? { expiresAt } : {}),
  };
  return { record, secret };
}

/** The view of a stored credential. */
export function credentialView(c: CredentialRecord, lastUsed: Record<string, string>, now = Date.now()): CredentialView {
  return {
    id: c.id, label: c.label, createdAt: c.createdAt, expiresAt: c.expiresAt ?? null, lastUsedAt: lastUsed[c.id] ?? null,
    expired: !!c.expiresAt && Date.parse(c.expiresAt) <= now, source: "runtime",
  };
}

/** The view of a config-file token hash (label "from config"; its use is not tracked). */
export function configTokenView(index: number): CredentialView {
  return { id: `config-${index}`, label: "from config", createdAt: null, expiresAt: null, lastUsedAt: null, expired: false, source: "config" };
}
