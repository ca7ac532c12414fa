/**
 * Admin API for directories at runtime (mounted under /admin/directories, after the admin sign-in):
 *   POST   /                               create: body = the directory as a config file holds it (no
 *                                          tokenHashes) → 201 {id, scimBaseUrl, token {id, label, secret}}
 *   PATCH  /:id                            change settings (merged; runtime directories only)
 *   POST   /:id/disable | /:id/enable      SCIM 403 and sync paused / back to normal
 *   DELETE /:id?platform=leave             delete a disabled runtime directory and purge its keys (200)
 *   DELETE /:id?platform=deprovision       plan the deprovision of its platform side and hold it (202, with
 *                                          the list); `&confirm=true` applies it, then purges; `&cancel=true`
 *                                          drops it (the directory stays disabled and intact); `{"by"}` names
 *                                          the operator for the audit
 *   POST   /:id/delete                     the same from a form (fields platform, confirm, cancel, by)
 *   GET    /:id/audit                      deletes and deprovision answers of the directory (also once deleted)
 *   GET    /:id/tokens                     the directory's tokens (never the secret)
 *   POST   /:id/tokens                     a new token {label?, expiresAt? | expiresInDays?}, secret shown once
 *   DELETE /:id/tokens/:tokenId            revoke
 *   GET    /:id/oauth                      OAuth client: clientId, token endpoint, its secrets
 *   POST   /:id/oauth/secrets              a new client secret, shown once
 *   DELETE /:id/oauth/secrets/:secretId    revoke
 * A form POST from the status page is answered with a redirect to the directory's page, with the outcome in words (feedback.ts).
 */
import express, { type Request, type Response, type Router } from "express";
import type { OpsContext } from "./ops-context";
import { configTokenView, credentialView, newCredential, parseCredentialInput, type CredentialInput } from "../auth/credentials";
import { KeyVarStore } from "../sync/control/key-var-store";
import { DirectoryChangeError, createDirectory, deleteDirectory, setDisabled, updateDirectory, type LifecycleDeps } from "../directories/lifecycle";
import type { CredentialKind } from "../directories/directory-records";
import { scimBaseUrl } from "./directory-status";
import { operator } from "./resync-routes";
import { createdPage, directoryHref } from "./status-page";
import { directoryFromForm, newDirectoryPage, type FormValues } from "./new-directory-page";
import { answer, fromForm } from "./feedback";

type Handler = (req: Request, res: Response) => Promise<void>;

/** Runs a handler; a refusal becomes `{error, issues?}` with its status (page forms: a redirect with the message). */
function guard(c: OpsContext, fn: Handler): Handler {
  return async (req, res) => {
    try {
      await fn(req, res);
    } catch (err) {
      if (!(err instanceof DirectoryChangeError)) throw err;
      const id = typeof req.params.id === "string" ? req.params.id : undefined;
      answer(req, res, err.status, { error: err.message, ...(err.issues ? { issues: err.issues } : {}) }, id && c.registry.get(id) ? directoryHref(id) : "/admin/status", "");
    }
  };
}

/** The public token endpoint URL. */
export function tokenEndpoint(c: OpsContext): string {
  return `${c.config.server.publicBaseUrl ?? `http://127.0.0.1:${c.config.server.port}`}/oauth/token`;
}

export function directoryAdminRoutes(c: OpsContext): Router {
  const r = express.Router();
  const deps: LifecycleDeps = { config: c.config, registry: c.registry, queues: c.queues, keyVars: new KeyVarStore(c.redis, c.config.redis.keyPrefix) };
  const records = () => {
    if (!c.registry.records) throw new DirectoryChangeError(503, "no Redis registry");
    return c.registry.records;
  };
  const known = (id: string) => {
    if (!c.registry.get(id)) throw new DirectoryChangeError(404, `unknown directory "${id}"`);
  };

  r.post("/", guard(c, async (req, res) => {
    if (fromForm(req)) {
      // the status page's guided form (new-directory-page.ts), answered with a page
      const values = Object.fromEntries(Object.entries(req.body ?? {}).filter(([, v]) => typeof v === "string")) as FormValues;
      const built = directoryFromForm(values);
      if ("more" in built) { res.status(400).type("html").send(newDirectoryPage(values, [`- more: ${built.more}`])); return; }
      try {
        const { id, token } = await createDirectory(deps, built.input);
        res.status(201).type("html").send(createdPage(id, scimBaseUrl(c.config, id), token.secret));
      } catch (err) {
        if (!(err instanceof DirectoryChangeError)) throw err;
        res.status(err.status).type("html").send(newDirectoryPage(values, err.issues ?? [err.status === 409 ? `- id: ${err.message}` : err.message]));
      }
      return;
    }
    const { id, token } = await createDirectory(deps, req.body);
    res.status(201).json({
      id, scimBaseUrl: scimBaseUrl(c.config, id),
      token: { id: token.record.id, label: token.record.label, secret: token.secret, createdAt: token.record.createdAt },
      note: "the token is shown once: give it to the IdP now (only its hash is kept)",
    });
  }));
  r.patch("/:id", guard(c, async (req, res) => {
    await updateDirectory(deps, req.params.id as string, req.body);
    res.json({ updated: req.params.id });
  }));
  for (const [path, disabled] of [["disable", true], ["enable", false]] as const) {
    r.post(`/:id/${path}`, guard(c, async (req, res) => {
      await setDisabled(deps, req.params.id as string, disabled);
      answer(req, res, 200, { id: req.params.id, disabled }, directoryHref(req.params.id as string),
        disabled ? `${req.params.id} disabled: SCIM answers 403 and its sync is paused (nothing queued is dropped).` : `${req.params.id} enabled: SCIM and its sync are back.`);
    }));
  }
  const flag = (v: unknown) => v === true || v === "true" || v === "1" || v === "on";
  const remove: Handler = async (req, res) => {
    const ask = (k: string) => (req.query[k] ?? req.body?.[k]) as unknown;
    const out = await deleteDirectory(deps, req.params.id as string, {
      platform: ask("platform"), confirm: flag(ask("confirm")), cancel: flag(ask("cancel")), by: operator(req),
    });
    const id = req.params.id as string;
    const b = out.body as { deleted?: string; confirmed?: number; cancelled?: number; status?: string; note?: string };
    const said = b.deleted ? `Directory ${id} deleted.` : b.confirmed !== undefined ? `Confirmed: ${b.confirmed} item(s) of ${id} are deprovisioned now; the directory is deleted once that is done.`
      : b.cancelled !== undefined ? `Delete of ${id} cancelled: nothing was deprovisioned; it stays disabled.`
      : b.status === "awaiting-confirmation" ? `Delete of ${id} planned: what it would deprovision is listed below and waits for your confirmation.`
      : `Delete of ${id}: ${b.note ?? b.status ?? "accepted"}.`;
    answer(req, res, out.status, out.body, b.deleted ? "/admin/status" : directoryHref(id), said);
  };
  r.delete("/:id", guard(c, remove));
  r.post("/:id/delete", guard(c, remove));
  r.get("/:id/audit", guard(c, async (req, res) => { res.json(await records().readAudit(req.params.id as string)); }));

  const listCredentials = (kind: CredentialKind) => async (id: string) => {
    const entry = c.registry.get(id)!;
    const used = await records().lastUsed(id);
    const own = entry.credentials.filter((x) => x.kind === kind).map((x) => credentialView(x, used));
    return kind === "token" ? [...entry.dir.tokenHashes.map((_h, i) => configTokenView(i)), ...own] : own;
  };
  const addCredential = async (kind: CredentialKind, id: string, body: CredentialInput | undefined) => {
    known(id);
    const parsed = parseCredentialInput(body);
    if (typeof parsed === "string") throw new DirectoryChangeError(400, parsed);
    const cred = newCredential(kind, parsed.label, parsed.expiresAt);
    await records().addCredential(id, cred.record);
    await c.registry.reload();
    return cred;
  };
  const revoke = async (kind: CredentialKind, id: string, credId: string) => {
    known(id);
    const cred = c.registry.get(id)!.credentials.find((x) => x.id === credId && x.kind === kind);
    if (!cred) throw new DirectoryChangeError(404, credId.startsWith("config-") ? "a token from config is revoked by removing its hash from the config file" : `no such ${kind === "token" ? "token" : "client secret"} "${credId}"`);
    await records().removeCredential(id, credId);
    await c.registry.reload();
  };

  r.get("/:id/tokens", guard(c, async (req, res) => { known(req.params.id as string); res.json(await listCredentials("token")(req.params.id as string)); }));
  r.post("/:id/tokens", guard(c, async (req, res) => {
    const cred = await addCredential("token", req.params.id as string, req.body);
    res.status(201).json({ ...credentialView(cred.record, {}), token: cred.secret, note: "shown once: only its hash is kept" });
  }));
  r.delete("/:id/tokens/:credId", guard(c, async (req, res) => {
    await revoke("token", req.params.id as string, req.params.credId as string);
    res.json({ revoked: req.params.credId });
  }));

  r.get("/:id/oauth", guard(c, async (req, res) => {
    known(req.params.id as string);
    const secrets = await listCredentials("client-secret")(req.params.id as string);
    res.json({ clientId: req.params.id, tokenEndpoint: tokenEndpoint(c), enabled: secrets.some((s) => !s.expired), secrets });
  }));
  r.post("/:id/oauth/secrets", guard(c, async (req, res) => {
    const cred = await addCredential("client-secret", req.params.id as string, req.body);
    res.status(201).json({
      ...credentialView(cred.record, {}), clientId: req.params.id, clientSecret: cred.secret, tokenEndpoint: tokenEndpoint(c),
      scimBaseUrl: scimBaseUrl(c.config, req.params.id as string), note: "the client secret is shown once: only its hash is kept",
    });
  }));
  r.delete("/:id/oauth/secrets/:credId", guard(c, async (req, res) => {
    await revoke("client-secret", req.params.id as string, req.params.credId as string);
    res.json({ revoked: req.params.credId });
  }));
  return r;
}
