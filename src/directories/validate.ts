/**
 * A directory created or changed at runtime is checked by the config file's own zod schema
 * (`directorySchema`), so the admin API answers the same messages `config check` prints for the file.
 */
import { configIssueLines } from "../config/load";
import { directorySchema, type DirectoryConfig } from "../config/schema";

export type Validated = { ok: true; dir: DirectoryConfig } | { ok: false; issues: string[] };

/**
 * Parses the config-file form of a runtime directory. Its tokens live in Redis, so `tokenHashes` is not
 * accepted here (tokens are made with POST /admin/directories/:id/tokens and shown once).
 */
export function validateDirectoryInput(input: unknown): Validated {
  if (typeof input !== "object" || input === null || Array.isArray(input)) return { ok: false, issues: ["- (top level): expected a JSON object (the directory as a config file would hold it)"] };
  if ("tokenHashes" in input) {
    return { ok: false, issues: ["- tokenHashes: not accepted for a directory made at runtime; make its tokens with POST /admin/directories/<id>/tokens (or `scim-bridge directory token create`)"] };
  }
  const parsed = directorySchema.safeParse(input);
  return parsed.success ? { ok: true, dir: parsed.data } : { ok: false, issues: configIssueLines(parsed.error) };
}
