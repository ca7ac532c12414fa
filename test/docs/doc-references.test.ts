/**
 * The docs name only what exists: every `npm run <script>` in README.md and docs/*.md is a script of
 * package.json, every backticked repository path (`src/…`, `bench/…`, `docs/…`, `config/…`, `test/…`,
 * `docker/…`) and relative markdown link is a file or folder of the repository, every `scim-bridge <command>`
 * in code is a command of the CLI (src/cli/index.ts `buildProgram`), and every backticked config key whose
 * first segment is a top-level key of the schema (`scim.maxScanRecords`, `directories[].platform.baseUrl`)
 * is a key path of src/config/schema.ts (a directory's own keys also without their `directories[].`:
 * `platform.baseUrl`). A `../` path, read from the doc's folder, stays inside the repository and exists.
 */
import fs from "node:fs";
import path from "node:path";
import type { Command } from "commander";
import { configSchema } from "../../src/config/schema";
import { buildProgram } from "../../src/cli/index";
import { schemaKeys } from "./schema-keys";

/**
 * Names in the docs that look like references but are not, each for its reason. Kept short: anything else
 * a doc names must exist.
 */
const NOT_REFERENCES = {
  /** files the operator creates: git-ignored, or one of the `config/<NODE_ENV>.json` the loader reads */
  paths: ["config/compose.json", "config/production.json"],
  /** log lines, not commands */
  commands: ["scim-bridge started"],
  /** a misspelt key shown as what the loader refuses */
  keys: ["sync.attemps"],
  /** docs whose dotted keys belong to another schema: the simulator's own configuration */
  keyDocs: ["docs/platform-simulator.md"],
};

const ROOT = path.resolve(__dirname, "../..");
const DOCS = ["README.md", ...fs.readdirSync(path.join(ROOT, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`)];
const TEXT = new Map(DOCS.map((d) => [d, fs.readFileSync(path.join(ROOT, d), "utf8")]));

/** Inline code spans and fenced code blocks of a markdown text. */
function codeOf(text: string): string[] {
  const blocks = [...text.matchAll(/^```[^\n]*\n([\s\S]*?)^```/gm)].map((m) => m[1]);
  const prose = text.replace(/^```[^\n]*\n[\s\S]*?^```/gm, "");
  const spans = [...prose.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]);
  return [...blocks, ...spans];
}

/** `fn(doc, match)` for every match of `re` in the docs' code (or whole text); the problems it returns. */
function check(re: RegExp, where: "code" | "text", fn: (m: RegExpMatchArray, doc: string) => string | undefined): string[] {
  const problems: string[] = [];
  for (const [doc, text] of TEXT) {
    for (const chunk of where === "code" ? codeOf(text) : [text]) {
      for (const m of chunk.matchAll(re)) {
        const p = fn(m, doc);
        if (p) problems.push(`${doc}: ${p}`);
      }
    }
  }
  return [...new Set(problems)];
}

describe("doc references", () => {
  it("should find the docs and their code (a scan that reads nothing proves nothing)", () => {
    expect(DOCS).toEqual(expect.arrayContaining(["README.md", "docs/limitations.md", "docs/operations.md"]));
    expect(codeOf(TEXT.get("README.md")!).length).toBeGreaterThan(50);
  });

  it("should run only scripts package.json has", () => {
    const scripts = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")).scripts as Record<string, string>;
    const found: string[] = [];
    const problems = check(/npm run ([\w:.-]*\w)/g, "text", (m) => {
      found.push(m[1]);
      return m[1] in scripts ? undefined : `npm run ${m[1]}: no such script`;
    });
    expect(found.length).toBeGreaterThan(5);
    expect(problems).toEqual([]);
  });

  it("should name only files and folders the repository has", () => {
    const allowed = new Set(NOT_REFERENCES.paths);
    const exists = (p: string) => allowed.has(p) || fs.existsSync(path.join(ROOT, p.replace(/[#:].*$/, "").replace(/\/$/, "")));
    /** A path with a placeholder (`<dir>`, `*`, `…`) names a pattern: its fixed folder must exist. */
    const fixedPart = (p: string) => (/[<*{…]/.test(p) ? p.slice(0, p.search(/[<*{…]/)).replace(/[^/]*$/, "") : p);
    let found = 0;
    const spans = check(/^(?:\.\/)?((?:src|bench|docs|config|test|docker)\/[^\s`'"),]*)$/g, "code", (m) => {
      found++;
      return exists(fixedPart(m[1])) ? undefined : `\`${m[1]}\` does not exist`;
    });
    const inCode = check(/(?<![\w./-])(?:\.\/)?((?:src|bench|docs|config|test|docker)\/[\w./<>*{}-]*[\w>*}])/g, "code", (m) => {
      found++;
      return exists(fixedPart(m[1])) ? undefined : `${m[1]} does not exist`;
    });
    const links = check(/\]\((?!https?:|mailto:|#)([^)\s]+)\)/g, "text", (m, doc) => {
      found++;
      const target = path.posix.join(path.posix.dirname(doc), m[1].replace(/#.*$/, ""));
      return exists(target) ? undefined : `link ${m[1]} does not exist`;
    });
    expect(found).toBeGreaterThan(20);
    expect([...spans, ...inCode, ...links]).toEqual([]);
  });

  it("should not send the reader to files outside the repository, or to missing ones", () => {
    // a `../` path is read from the doc's folder: `../src/…` of a doc in docs/ is in the repository
    const problems = check(/(?<![\w/.-])(\.\.\/[\w./<>-]+)/g, "code", (m, doc) => {
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(doc), m[1]));
      if (target.startsWith("../")) return `${m[1]} is outside the repository`;
      return fs.existsSync(path.join(ROOT, target)) ? undefined : `${m[1]} does not exist`;
    });
    expect(problems).toEqual([]);
  });

  it("should run only commands the CLI has", () => {
    const program = buildProgram();
    const sub = (c: Command, name: string) => c.commands.find((x) => x.name() === name || x.aliases().includes(name));
    let found = 0;
    const problems = check(/(?<![\w/.-])scim-bridge((?:[ \t]+[a-z][\w-]*){1,2})/g, "code", (m) => {
      found++;
      if (NOT_REFERENCES.commands.some((c) => `scim-bridge${m[1]}`.startsWith(c))) return undefined;
      const [first, second] = m[1].trim().split(/\s+/);
      const cmd = sub(program, first);
      if (!cmd) return `scim-bridge ${first}: no such command`;
      if (cmd.commands.length > 0 && second && !sub(cmd, second)) return `scim-bridge ${first} ${second}: no such subcommand`;
      return undefined;
    });
    expect(found).toBeGreaterThan(5);
    expect(problems).toEqual([]);
  });

  it("should name only config keys the schema has", () => {
    const keys = new Set(schemaKeys(configSchema).map((k) => k.path));
    const top = new Set([...keys].map((k) => k.split(/[.[]/)[0]));
    // a directory's own keys are also written without their `directories[].` (`platform.baseUrl`)
    const dirKeys = new Set([...keys].filter((k) => k.startsWith("directories[].")).map((k) => k.slice("directories[].".length)));
    const dirTop = new Set([...dirKeys].map((k) => k.split(/[.[]/)[0]));
    let found = 0;
    const problems = check(/^([a-z][A-Za-z0-9]*)((?:\[\d*\])?(?:\.[A-Za-z][A-Za-z0-9]*(?:\[\d*\])?)+)(?:\s*[:=].*)?$/g, "code", (m, doc) => {
      if (!(top.has(m[1]) || dirTop.has(m[1])) || NOT_REFERENCES.keyDocs.includes(doc) || NOT_REFERENCES.keys.includes(m[1] + m[2])) return undefined;
      found++;
      const key = (m[1] + m[2]).replace(/\[\d*\]/g, "[]");
      return keys.has(key) || dirKeys.has(key) ? undefined : `config key \`${m[1] + m[2]}\` is not in src/config/schema.ts`;
    });
    expect(found).toBeGreaterThan(10);
    expect(problems).toEqual([]);
  });
});
