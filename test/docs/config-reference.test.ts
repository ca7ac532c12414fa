/**
 * The README's configuration reference is checked against the zod schema it documents
 * (`src/config/schema.ts`): every key path of the schema has a row, no row names a key the schema does
 * not have, and every default in the table is the schema's. Environment variables of `ENV_KEYS` and the
 * config-file variables have rows in the environment table.
 */
import fs from "node:fs";
import path from "node:path";
import { z } from "zod";
import { configSchema } from "../../src/config/schema";
import { schemaKeys } from "./schema-keys";
import { ENV_KEYS } from "../../src/config/load";

const README = fs.readFileSync(path.resolve(__dirname, "../../README.md"), "utf8");

/** The text of one `## ` section of the README. */
function section(title: string): string {
  const start = README.indexOf(`\n## ${title}\n`);
  if (start < 0) throw new Error(`README has no "## ${title}" section`);
  const end = README.indexOf("\n## ", start + 1);
  return README.slice(start, end < 0 ? undefined : end);
}

/** Rows of the markdown tables in `text` whose first cell is one code span: first cell → the other cells. */
function tableRows(text: string): Map<string, string[]> {
  const rows = new Map<string, string[]>();
  for (const line of text.split("\n")) {
    const m = /^\|\s*`([^`]+)`\s*\|(.*)\|\s*$/.exec(line);
    if (m) rows.set(m[1], m[2].split(/(?<!\\)\|/).map((c) => c.trim()));
  }
  return rows;
}

/** A default cell (`` `8080` ``, `` `"info"` ``, `` `{"max":50}` ``) as a value; undefined for `—`. */
function cellValue(cell: string): unknown {
  const m = /^`(.*)`$/.exec(cell.trim());
  if (!m) return undefined;
  return JSON.parse(m[1]);
}

describe("schemaKeys", () => {
  it("should list nested keys, array element fields and defaults of a zod 4 schema", () => {
    const s = z.object({
      a: z.object({ b: z.number().default(3) }).prefault({}),
      list: z.array(z.object({ id: z.string(), opt: z.string().optional() })).default([]),
      tags: z.array(z.string()).default([]),
    });
    expect(schemaKeys(s)).toEqual([
      { path: "a", default: {} }, { path: "a.b", default: 3 },
      { path: "list", default: [] }, { path: "list[].id" }, { path: "list[].opt" },
      { path: "tags", default: [] },
    ]);
  });
});

describe("README configuration reference", () => {
  const keys = schemaKeys(configSchema);
  const rows = tableRows(section("Configuration reference"));
  const keyRows = new Map([...rows].filter(([k]) => !/^[A-Z][A-Z0-9_]*$/.test(k)));

  it("should find the whole schema (a walk that finds nothing proves nothing)", () => {
    expect(keys.length).toBeGreaterThan(50);
    expect(keys.map((k) => k.path)).toEqual(expect.arrayContaining(["server.port", "directories[].platform.baseUrl", "directories[].embed.attributeMapping[].type"]));
  });

  it("should have a row for every key of the schema", () => {
    const missing = keys.map((k) => k.path).filter((p) => !keyRows.has(p));
    expect(missing).toEqual([]);
  });

  it("should not document keys the schema does not have", () => {
    const known = new Set(keys.map((k) => k.path));
    const unknown = [...keyRows.keys()].filter((p) => !known.has(p));
    expect(unknown).toEqual([]);
  });

  it("should give each key the schema's default", () => {
    const wrong: string[] = [];
    for (const k of keys) {
      const cells = keyRows.get(k.path);
      if (!cells) continue;
      let documented: unknown;
      try {
        documented = cellValue(cells[1]);
      } catch {
        wrong.push(`${k.path}: default cell ${cells[1]} is not JSON in a code span`);
        continue;
      }
      const expected = k.default;
      if (JSON.stringify(documented) !== JSON.stringify(expected)) {
        wrong.push(`${k.path}: README says ${cells[1]}, schema default is ${expected === undefined ? "none (—)" : JSON.stringify(expected)}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it("should list every environment variable the loader reads", () => {
    const names = [...Object.keys(ENV_KEYS), "SCIM_BRIDGE_CONFIG", "SCIM_BRIDGE_CONFIG_JSON", "NODE_ENV"];
    const missing = names.filter((n) => !rows.has(n));
    expect(missing).toEqual([]);
  });
});
