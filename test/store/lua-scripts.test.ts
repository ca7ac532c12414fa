/**
 * One way to run Lua (src/store/scripts.ts): every script is a file of src/store/commands named
 * `<name>-<numKeys>.lua` (`-n` when the count varies per call), loaded once and run by EVALSHA, and every key
 * it touches comes in KEYS, built in TypeScript by the key builders. Redis Cluster asks for it ("all the keys
 * accessed by the script should be explicitly provided as input key arguments", EVAL documentation): a key
 * named only inside the script is never checked against the slot the call was routed to. This scan fails
 * on a script that builds a key from an argument, on Lua text or a plain EVAL in TypeScript.
 */
import fs from "node:fs";
import path from "node:path";

const ROOT = path.resolve(__dirname, "../..");
const COMMANDS = path.join(ROOT, "src/store/commands");
const INCLUDES = path.join(COMMANDS, "includes");

/**
 * Scripts still given their directory's prefix as an argument: the group scripts, converted by their owners.
 * A name whose file is gone (renamed when converted) is skipped; the test below fails once a listed script
 * no longer builds a key from an argument, so the list only shrinks.
 */
const NOT_YET: string[] = [];

/** Functions of includes/ that build keys from their first argument, a directory prefix. */
const PREFIX_FUNCTIONS = ["drainMemberOf", "largeGroups", "groupsOf", "touchGroup", "settleKey", "applyMemberOfEntry"];

function files(dir: string, ext: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((f) => {
    const p = path.join(dir, f.name);
    return f.isDirectory() ? files(p, ext) : p.endsWith(ext) ? [p] : [];
  });
}

/** The places where `lua` builds a key from an argument (ARGV, or a local it was assigned from). */
function keysFromArguments(lua: string): string[] {
  const fromArgv = new Set<string>();
  for (const m of lua.matchAll(/local\s+([\w\s,]+?)\s*=\s*([^\n]+)/g)) {
    const names = m[1].split(",").map((s) => s.trim());
    const values = m[2].split(",").map((s) => s.trim());
    names.forEach((n, i) => { if (/^ARGV\[\d+\]/.test(values[i] ?? "")) fromArgv.add(n); });
  }
  const arg = `(?:ARGV\\[\\d+\\]${[...fromArgv].map((n) => `|\\b${n}\\b`).join("")})`;
  const out: string[] = [];
  lua.split("\n").forEach((line, i) => {
    const code = line.replace(/--.*$/, "");
    // a key suffix appended to an argument: P .. 'users', ARGV[1] .. 'u:' .. id
    if (new RegExp(`${arg}\\s*\\.\\.\\s*'[A-Za-z]`).test(code)) out.push(`${i + 1}: ${line.trim()}`);
    // an argument handed to an include that builds keys from its first parameter
    else if (new RegExp(`\\b(${PREFIX_FUNCTIONS.join("|")})\\(\\s*${arg}\\s*[,)]`).test(code)) out.push(`${i + 1}: ${line.trim()}`);
  });
  return out;
}

describe("the store's Lua scripts", () => {
  const scripts = fs.readdirSync(COMMANDS).filter((f) => f.endsWith(".lua"));

  it("should be named <name>-<numKeys>.lua or <name>-n.lua", () => {
    expect(scripts.length).toBeGreaterThan(20);
    expect(scripts.filter((f) => !/^\w+-(\d+|n)\.lua$/.test(f))).toEqual([]);
  });

  it("should build no key from an argument (keys come in KEYS)", () => {
    const offenders = scripts.filter((f) => !NOT_YET.includes(f))
      .flatMap((f) => keysFromArguments(fs.readFileSync(path.join(COMMANDS, f), "utf8")).map((at) => `${f}:${at}`));
    expect(offenders).toEqual([]);
  });

  it("should still be scanned where a script is let off (a list that names a converted script is out of date)", () => {
    for (const f of NOT_YET.filter((f) => scripts.includes(f))) expect(keysFromArguments(fs.readFileSync(path.join(COMMANDS, f), "utf8")).length).toBeGreaterThan(0);
  });

  it("should catch a key built from an argument (a scan that finds nothing proves nothing)", () => {
    expect(keysFromArguments("local P, id = ARGV[1], ARGV[2]\nredis.call('DEL', P .. 'u:' .. id)")).toHaveLength(1);
    expect(keysFromArguments("redis.call('ZADD', ARGV[1] .. 'users', 1, 'x')")).toHaveLength(1);
    expect(keysFromArguments("local P = ARGV[1]\ndrainMemberOf(P)")).toHaveLength(1);
    expect(keysFromArguments("local id = ARGV[1]\nredis.call('ZREM', KEYS[1], v .. '\\0' .. id)")).toEqual([]);
  });

  it("should have every include used by a script", () => {
    const all = scripts.map((f) => fs.readFileSync(path.join(COMMANDS, f), "utf8")).join("\n");
    const unused = fs.readdirSync(INCLUDES).map((f) => f.replace(/\.lua$/, "")).filter((n) => !all.includes(`-- @include ${n}\n`));
    expect(unused).toEqual([]);
  });

  it("should be the only Lua: no TypeScript of src holds script text or runs a plain EVAL", () => {
    const offenders = files(path.join(ROOT, "src"), ".ts").flatMap((p) => fs.readFileSync(p, "utf8").split("\n")
      .map((line, i) => (/redis\.p?call\(|\.eval\(|\bevalsha\(|defineCommand\(/.test(line) ? `${path.relative(ROOT, p)}:${i + 1}` : ""))
      .filter(Boolean))
      // scripts.ts defines the commands of commands/ (defineCommand)
      .filter((at) => !at.startsWith(path.join("src", "store", "scripts.ts")));
    expect(offenders).toEqual([]);
  });
});
