/**
 * Bad request bodies on every SCIM write endpoint: each gets an RFC 7644 §3.12 4xx body and leaves the
 * store exactly as it was (every key under the test prefix, compared before and after).
 */
import { gzipSync } from "node:zlib";
import request from "supertest";
import { startScim, type TestScim } from "../helpers/scim-app";
import { expectScimError, userBody, type ResponseLike } from "../helpers/expect-scim";
import { expectUnchanged } from "../helpers/redis-snapshot";
import { rawRequest } from "../helpers/raw-http";
import { waitTrail } from "../helpers/activity-wait";

let s: TestScim;
let userId: string;
/** A user of globex, a strict directory (attributes it does not have are refused, not ignored). */
let strictUserId: string;
let groupId: string;
const U = "/scim/v2/acme/Users";
const G = "/scim/v2/acme/Groups";
const SCIM_JSON = "application/scim+json";
const ENT = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User";

beforeAll(async () => {
  s = await startScim({}, { globex: { strict: true } }); // default body limit (1 MiB)
  userId = (await request(s.app).post(U).set(s.auth()).send(userBody("alice@example.com", { displayName: "Alice" }))).body.id;
  strictUserId = (await request(s.app).post("/scim/v2/globex/Users").set(s.auth("globex")).send(userBody("alice@example.com", { displayName: "Alice" }))).body.id;
  groupId = (await request(s.app).post(G).set(s.auth()).send({ displayName: "Admins", members: [{ value: userId }] })).body.id;
});
afterAll(async () => s.close());

/** Every endpoint that reads a JSON body, with its method. */
function bodyEndpoints(): Array<[string, string]> {
  return [
    ["POST", U], ["PUT", `${U}/${userId}`], ["PATCH", `${U}/${userId}`], ["POST", `${U}/.search`],
    ["POST", G], ["PUT", `${G}/${groupId}`], ["PATCH", `${G}/${groupId}`], ["POST", `${G}/.search`],
  ];
}

function send(method: string, path: string, body: Buffer | string | undefined, contentType: string | undefined = SCIM_JSON) {
  return rawRequest(s.app, { method, path, body, headers: { ...s.auth(), ...(contentType ? { "Content-Type": contentType } : {}) } });
}

/** No stack frames, file paths or runtime error names in a response. */
function expectNoInternals(res: ResponseLike): void {
  expect(res.text).not.toMatch(/\n\s+at |\.[jt]s:\d+|node_modules|call stack|RangeError|SyntaxError|TypeError|<html/i);
}

/** Sends, expects a SCIM error and an unchanged store. */
async function refused(method: string, path: string, body: Buffer | string | undefined, status: number, scimType?: string, contentType?: string): Promise<void> {
  await expectUnchanged(s.redis, s.prefix, async () => {
    const res = await send(method, path, body, contentType);
    try {
      expectScimError(res, status, scimType);
      expectNoInternals(res);
    } catch (err) {
      throw new Error(`${method} ${path} with ${String(body).slice(0, 80)}: ${res.status} ${res.text.slice(0, 300)}\n${(err as Error).message}`);
    }
  });
}

describe("malformed JSON", () => {
  const samples = ['{"userName": "x",', "{", "[1, 2", "{'userName': 'x'}", '{"a": 1}}', '{"a": NaN}', '{"a": undefined}', "nul", '{"a":"\\x41"}', '{"a":"unterminated}'];
  it.each(samples)("should answer %j with 400 invalidSyntax on every body endpoint", async (text) => {
    for (const [method, path] of bodyEndpoints()) await refused(method, path, text, 400, "invalidSyntax");
  });

  it("should answer JSON that is not an object (array, string, number, null) with 400 on every body endpoint", async () => {
    for (const text of ["[]", '"userName"', "42", "null", "true"]) {
      for (const [method, path] of bodyEndpoints()) {
        await expectUnchanged(s.redis, s.prefix, async () => {
          const res = await send(method, path, text);
          expect(res.status).toBe(400);
          expectScimError(res, 400, (res.body as { scimType?: string }).scimType);
        });
      }
    }
  });

  it("should answer an empty body with a 400 SCIM error, not a 5xx", async () => {
    for (const [method, path] of bodyEndpoints().filter(([, p]) => !p.endsWith(".search"))) {
      await expectUnchanged(s.redis, s.prefix, async () => {
        const res = await send(method, path, "");
        // an empty PatchOp or SearchRequest is a no-op / default search; anything else is a 400
        if (res.status < 300) expect(method === "PATCH").toBe(true);
        else expectScimError(res, 400, (res.body as { scimType?: string }).scimType);
      });
    }
  });
});

describe("content types", () => {
  const body = JSON.stringify(userBody("ct@example.com"));
  it.each(["text/plain", "application/x-www-form-urlencoded", "application/xml", "text/xml", "multipart/form-data; boundary=x", "application/octet-stream"])(
    "should answer Content-Type %s with 415 on every POST, PUT and PATCH", async (type) => {
      for (const [method, path] of bodyEndpoints()) await refused(method, path, body, 415, undefined, type);
    },
  );

  it("should answer a body without any Content-Type with 415", async () => {
    for (const [method, path] of bodyEndpoints()) await refused(method, path, body, 415, undefined, "");
  });

  it.each(["iso-8859-1", "utf-16le", "utf-16", "x-unknown"])("should answer charset=%s with 415 (SCIM JSON is UTF-8)", async (charset) => {
    for (const [method, path] of bodyEndpoints()) await refused(method, path, body, 415, undefined, `${SCIM_JSON}; charset=${charset}`);
  });
});

describe("bodies over the configured limit", () => {
  it("should answer 413 on every body endpoint, also when the body is valid JSON", async () => {
    const big = JSON.stringify(userBody("big@example.com", { title: "x".repeat(s.config.server.bodyLimitBytes) }));
    for (const [method, path] of bodyEndpoints()) await refused(method, path, big, 413);
  });

  it("should apply the limit to the decompressed size (a gzip bomb gets 413)", async () => {
    const bomb = gzipSync(Buffer.from(JSON.stringify(userBody("bomb@example.com", { title: " ".repeat(20 * 1024 * 1024) }))));
    expect(bomb.length).toBeLessThan(s.config.server.bodyLimitBytes);
    await expectUnchanged(s.redis, s.prefix, async () => {
      const res = await rawRequest(s.app, { method: "POST", path: U, body: bomb, headers: { ...s.auth(), "Content-Type": SCIM_JSON, "Content-Encoding": "gzip" } });
      expectScimError(res, 413);
    });
  });

  it("should answer an unknown Content-Encoding with 415", async () => {
    await expectUnchanged(s.redis, s.prefix, async () => {
      const res = await rawRequest(s.app, { method: "POST", path: U, body: JSON.stringify(userBody("enc@example.com")), headers: { ...s.auth(), "Content-Type": SCIM_JSON, "Content-Encoding": "x-squash" } });
      expectScimError(res, 415);
    });
  });
});

describe("deeply nested JSON", () => {
  const nest = (levels: number, inner = '"x"') => '{"a":'.repeat(levels) + inner + "}".repeat(levels);
  const arrays = (levels: number) => "[".repeat(levels) + "]".repeat(levels);

  it.each([10_000, 100_000])("should refuse %i levels with 400 invalidSyntax wherever the nesting is", async (levels) => {
    const deep = nest(levels);
    const deepArr = arrays(levels);
    const cases: Array<[string, string, string]> = [
      ["POST", U, deep],
      ["POST", U, deepArr],
      ["POST", U, `{"userName":"deep1","title":${deep}}`],
      ["POST", U, `{"userName":"deep2","emails":[${deep}]}`],
      ["POST", U, `{"userName":"deep3","${ENT}":{"manager":${deep}}}`],
      ["POST", U, `{"userName":"deep4","x509Certificates":${deepArr}}`],
      ["PUT", `${U}/${userId}`, `{"userName":"alice@example.com","x509Certificates":[${deep}]}`],
      ["PATCH", `${U}/${userId}`, `{"Operations":[{"op":"add","path":"${ENT}:manager","value":${deep}}]}`],
      ["PATCH", `${U}/${userId}`, `{"Operations":[{"op":"add","path":"emails","value":[${deep}]}]}`],
      ["PATCH", `${U}/${userId}`, `{"Operations":[{"op":"replace","value":${deep}}]}`],
      ["POST", G, `{"displayName":"deep","members":[{"value":${deep}}]}`],
      ["PATCH", `${G}/${groupId}`, `{"Operations":[{"op":"add","path":"members","value":${deepArr}}]}`],
      ["POST", `${U}/.search`, `{"attributes":${deepArr}}`],
      ["POST", `${G}/.search`, `{"filter":${deep}}`],
    ];
    for (const [method, path, text] of cases) await refused(method, path, text, 400, "invalidSyntax");
  });

  it("should still accept the nesting real resources have", async () => {
    const res = await request(s.app).patch(`${U}/${userId}`).set(s.auth()).send({
      schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
      Operations: [{ op: "replace", value: { [ENT]: { manager: { value: userId } }, addresses: [{ type: "work", locality: "Paris" }] } }],
    });
    expect(res.status).toBe(200);
    expect(res.body[ENT].manager.value).toBe(userId);
  });
});

describe("__proto__, constructor and prototype keys", () => {
  const evil = { polluted: "yes", userName: "evil", displayName: "evil", active: false };
  /** Builds JSON text whose objects carry a literal `"__proto__"` key, at every level. */
  function protoJson(value: Record<string, unknown>): string {
    const inner = JSON.stringify(value).slice(1, -1);
    const p = `"__proto__":${JSON.stringify(evil)},"constructor":{"prototype":${JSON.stringify(evil)}},"prototype":${JSON.stringify(evil)}`;
    return `{${p}${inner ? `,${inner}` : ""}}`;
  }

  afterEach(() => {
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty("polluted");
  });

  it("should refuse bodies made only of such keys with a 4xx and store nothing", async () => {
    await refused("POST", U, protoJson({}), 400, "invalidValue");
    await refused("POST", G, protoJson({}), 400, "invalidValue");
    await refused("PUT", `${U}/${userId}`, protoJson({}), 400, "invalidValue");
  });

  it("should not let them reach a stored user at any level (top, complex, multi-valued, extension)", async () => {
    const body = `{"schemas":["urn:ietf:params:scim:schemas:core:2.0:User"],"userName":"proto@example.com",`
      + `"__proto__":${JSON.stringify(evil)},"constructor":{"prototype":${JSON.stringify(evil)}},"prototype":${JSON.stringify(evil)},`
      + `"name":${protoJson({ givenName: "Pro" })},"emails":[${protoJson({ value: "proto@example.com", type: "work" })}],`
      + `"${ENT}":${protoJson({ department: "R&D" })}}`;
    const res = await send("POST", U, body);
    expect(res.status).toBe(201);
    const id = (res.body as { id: string }).id;
    const stored = await s.users.get("acme", id);
    expect(stored!.body).toEqual({
      schemas: ["urn:ietf:params:scim:schemas:core:2.0:User", ENT], userName: "proto@example.com",
      name: { givenName: "Pro" }, emails: [{ value: "proto@example.com", type: "work" }], [ENT]: { department: "R&D" },
    });
    expect(JSON.stringify(stored)).not.toMatch(/polluted|evil|__proto__|prototype|constructor/);
    await request(s.app).delete(`${U}/${id}`).set(s.auth()).expect(204);
  });

  it("should treat them as unknown in PATCH (ignored, or invalidPath in a strict directory; nothing applied without one)", async () => {
    for (const path of ["__proto__", "__proto__.polluted", "constructor.prototype.polluted", "prototype", "name.__proto__", "emails[type eq \"work\"].__proto__"]) {
      const before = (await s.users.get("acme", userId))!;
      const patch = () => send("PATCH", `${U}/${userId}`, JSON.stringify({ Operations: [{ op: "add", path, value: { polluted: "yes" } }] }));
      // a path SCIMMY cannot read is refused (nothing written); a well-formed one is ignored and named in the trail
      const res = await patch();
      if (res.status !== 200) expectScimError(res, 400, "invalidPath");
      else await waitTrail(s, "acme", userId, (e) => !!e.ignored?.includes(path));
      const after = (await s.users.get("acme", userId))!;
      expect([after.body, after.version]).toEqual([before.body, before.version]);
      const G_USERS = "/scim/v2/globex/Users";
      await expectUnchanged(s.redis, s.prefix, async () => {
        const strict = await rawRequest(s.app, { method: "PATCH", path: `${G_USERS}/${strictUserId}`, body: JSON.stringify({ Operations: [{ op: "add", path, value: { polluted: "yes" } }] }), headers: { ...s.auth("globex"), "Content-Type": SCIM_JSON } });
        expectScimError(strict, 400, "invalidPath");
      });
    }
    for (const raw of [
      `{"Operations":[{"op":"replace","value":{"__proto__":${JSON.stringify(evil)}}}]}`,
      `{"Operations":[{"__proto__":{"op":"replace","path":"displayName","value":"evil"}}]}`,
      `{"__proto__":{"Operations":[{"op":"replace","path":"displayName","value":"evil"}]}}`,
    ]) {
      await expectUnchanged(s.redis, s.prefix, async () => {
        const res = await send("PATCH", `${U}/${userId}`, raw);
        if (res.status >= 400) expectScimError(res, 400, (res.body as { scimType?: string }).scimType);
        else expect((res.body as { displayName: string }).displayName).toBe("Alice");
      });
      await expectUnchanged(s.redis, s.prefix, async () => {
        const res = await send("PATCH", `${G}/${groupId}`, raw.replace(/displayName/g, "displayName"));
        if (res.status >= 400) expectScimError(res, 400, (res.body as { scimType?: string }).scimType);
        else expect(res.status).toBe(204);
      });
    }
  });

  it("should ignore them in a SearchRequest and in query parameters", async () => {
    const res = await send("POST", `${U}/.search`, `{"__proto__":{"filter":"userName eq \\"nobody\\"","count":0}}`);
    expect(res.status).toBe(200);
    expect((res.body as { totalResults: number }).totalResults).toBeGreaterThan(0);
    const q = await request(s.app).get(`${U}?__proto__[filter]=x&constructor[prototype][polluted]=yes&filter=userName%20eq%20%22alice@example.com%22`).set(s.auth());
    expect(q.status).toBe(200);
    expect(q.body.totalResults).toBe(1);
  });
});

describe("invalid UTF-8", () => {
  const bad: Array<[string, number[]]> = [
    ["a lone continuation byte pair (0xC3 0x28)", [0xc3, 0x28]],
    ["bytes that never appear in UTF-8 (0xFF 0xFE)", [0xff, 0xfe]],
    ["an overlong encoding (0xC0 0xAF)", [0xc0, 0xaf]],
    ["an encoded surrogate (0xED 0xA0 0x80)", [0xed, 0xa0, 0x80]],
    ["a truncated sequence (0xE2 0x82)", [0xe2, 0x82]],
  ];
  const inString = (prefix: string, bytes: number[], suffix: string) => Buffer.concat([Buffer.from(prefix), Buffer.from(bytes), Buffer.from(suffix)]);

  it.each(bad)("should refuse %s with 400 invalidSyntax on every body endpoint", async (_name, bytes) => {
    await refused("POST", U, inString('{"userName":"', bytes, '"}'), 400, "invalidSyntax");
    await refused("PUT", `${U}/${userId}`, inString('{"userName":"alice@example.com","displayName":"', bytes, '"}'), 400, "invalidSyntax");
    await refused("PATCH", `${U}/${userId}`, inString('{"Operations":[{"op":"replace","path":"displayName","value":"', bytes, '"}]}'), 400, "invalidSyntax");
    await refused("POST", G, inString('{"displayName":"', bytes, '"}'), 400, "invalidSyntax");
    await refused("PUT", `${G}/${groupId}`, inString('{"displayName":"', bytes, '"}'), 400, "invalidSyntax");
    await refused("PATCH", `${G}/${groupId}`, inString('{"Operations":[{"op":"replace","path":"displayName","value":"', bytes, '"}]}'), 400, "invalidSyntax");
    await refused("POST", `${U}/.search`, inString('{"filter":"userName eq \\"', bytes, '\\""}'), 400, "invalidSyntax");
    await refused("POST", U, inString('{"userName":"key","', bytes, '":1}'), 400, "invalidSyntax"); // in a key
  });

  // issue 9 item 7: the escaped form of what 0xED 0xA0 0x80 encodes is refused the same way
  it.each(["\\ud800", "\\udfff", "a\\ud83d", "\\ude00b", "\\uDBFF\\u0041"])("should refuse the JSON escape %s (a lone surrogate) with 400 invalidValue on every body endpoint, and store nothing", async (esc) => {
    const raw = (prefix: string, suffix: string) => `${prefix}${esc}${suffix}`;
    await refused("POST", U, raw('{"userName":"', '@example.com"}'), 400, "invalidValue");
    await refused("POST", U, raw('{"userName":"lone@example.com","name":{"givenName":"', '"}}'), 400, "invalidValue");
    await refused("PUT", `${U}/${userId}`, raw('{"userName":"alice@example.com","displayName":"', '"}'), 400, "invalidValue");
    await refused("PATCH", `${U}/${userId}`, raw('{"Operations":[{"op":"replace","path":"displayName","value":"', '"}]}'), 400, "invalidValue");
    await refused("PATCH", `${U}/${userId}`, raw('{"Operations":[{"op":"replace","value":{"title":"', '"}}]}'), 400, "invalidValue");
    await refused("POST", G, raw('{"displayName":"', '"}'), 400, "invalidValue");
    await refused("PATCH", `${G}/${groupId}`, raw('{"Operations":[{"op":"add","path":"members","value":[{"value":"', '"}]}]}'), 400, "invalidValue");
    await refused("POST", U, raw('{"userName":"key@example.com","', '":1}'), 400, "invalidValue"); // in a key
    await refused("POST", `${U}/.search`, raw('{"filter":"userName eq \\"', '\\""}'), 400, "invalidValue");
  });

  it("should accept escaped surrogate pairs and store them as the characters they encode", async () => {
    const res = await send("POST", U, '{"userName":"pair@example.com","displayName":"\\ud83d\\ude00 \\u00e9"}');
    expect(res.status).toBe(201);
    expect((await s.users.get("acme", (res.body as { id: string }).id))!.body.displayName).toBe("\u{1F600} \u00e9");
    await request(s.app).delete(`${U}/${(res.body as { id: string }).id}`).set(s.auth()).expect(204);
  });

  it("should store valid multi-byte UTF-8 exactly as sent", async () => {
    const name = "Zoë Ångström 山田 🙂 \u{10FFFF}";
    const res = await send("POST", U, Buffer.from(JSON.stringify(userBody("utf8@example.com", { displayName: name })), "utf8"));
    expect(res.status).toBe(201);
    expect((await s.users.get("acme", (res.body as { id: string }).id))!.body.displayName).toBe(name);
    await request(s.app).delete(`${U}/${(res.body as { id: string }).id}`).set(s.auth()).expect(204);
  });
});

describe("control characters", () => {
  const controls = ["\u0000", "\u0001", "\u001b", "\u0007", "\u007f", "\u0085"];

  const label = (c: string) => `U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}`;
  it.each(controls.map((c) => [label(c), c]))("should refuse %s in userName, displayName and externalId with 400 invalidValue", async (_n, c) => {
    await refused("POST", U, JSON.stringify(userBody(`ctl${c}x@example.com`)), 400, "invalidValue");
    await refused("POST", U, JSON.stringify(userBody("ctl@example.com", { displayName: `A${c}B` })), 400, "invalidValue");
    await refused("POST", U, JSON.stringify(userBody("ctl@example.com", { externalId: `x${c}` })), 400, "invalidValue");
    await refused("PUT", `${U}/${userId}`, JSON.stringify(userBody(`alice${c}@example.com`)), 400, "invalidValue");
    await refused("PATCH", `${U}/${userId}`, JSON.stringify({ Operations: [{ op: "replace", path: "userName", value: `a${c}b` }] }), 400, "invalidValue");
    await refused("PATCH", `${U}/${userId}`, JSON.stringify({ Operations: [{ op: "replace", value: { displayName: `a${c}b` } }] }), 400, "invalidValue");
    await refused("POST", G, JSON.stringify({ displayName: `G${c}` }), 400, "invalidValue");
    await refused("PUT", `${G}/${groupId}`, JSON.stringify({ displayName: `G${c}` }), 400, "invalidValue");
    await refused("PATCH", `${G}/${groupId}`, JSON.stringify({ Operations: [{ op: "replace", path: "displayName", value: `G${c}` }] }), 400, "invalidValue");
  });

  const invisible = ["\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066", "\u2067", "\u2068", "\u2069", "\u200b", "\u2060", "\ufeff"];
  it.each(invisible.map((c) => [label(c), c]))("should refuse the bidi or invisible character %s in userName, displayName and externalId with 400 invalidValue", async (_n, c) => {
    await refused("POST", U, JSON.stringify(userBody(`bob${c}@example.com`)), 400, "invalidValue");
    await refused("POST", U, JSON.stringify(userBody("inv@example.com", { displayName: `A${c}B` })), 400, "invalidValue");
    await refused("POST", U, JSON.stringify(userBody("inv@example.com", { externalId: `x${c}` })), 400, "invalidValue");
    await refused("POST", U, JSON.stringify(userBody("inv@example.com", { emails: [{ value: `inv${c}@example.com`, primary: true }] })), 400, "invalidValue");
    await refused("PUT", `${U}/${userId}`, JSON.stringify(userBody(`alice${c}@example.com`)), 400, "invalidValue");
    await refused("PATCH", `${U}/${userId}`, JSON.stringify({ Operations: [{ op: "replace", path: "userName", value: `a${c}b` }] }), 400, "invalidValue");
    await refused("POST", G, JSON.stringify({ displayName: `G${c}` }), 400, "invalidValue");
    await refused("PATCH", `${G}/${groupId}`, JSON.stringify({ Operations: [{ op: "replace", path: "displayName", value: `G${c}` }] }), 400, "invalidValue");
  });

  it("should refuse ZERO WIDTH NON-JOINER and JOINER in userName and externalId, but keep them in a displayName (Persian, Indic, emoji)", async () => {
    for (const c of ["\u200c", "\u200d"]) {
      await refused("POST", U, JSON.stringify(userBody(`bob${c}@example.com`)), 400, "invalidValue");
      await refused("POST", U, JSON.stringify(userBody("zw@example.com", { externalId: `x${c}` })), 400, "invalidValue");
    }
    const displayName = "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645 \u{1f469}\u200d\u{1f4bb}";
    const res = await request(s.app).post(U).set(s.auth()).send(userBody("zwnj@example.com", { displayName }));
    expect(res.status).toBe(201);
    expect(res.body.displayName).toBe(displayName);
    await request(s.app).delete(`${U}/${res.body.id}`).set(s.auth()).expect(204);
  });

  it("should refuse NUL, \\u0001 and ESC in any other string attribute, but keep tabs and line breaks in free text", async () => {
    for (const c of ["\u0000", "\u0001", "\u001b"]) {
      await refused("POST", U, JSON.stringify(userBody("ctl2@example.com", { title: `t${c}` })), 400, "invalidValue");
      await refused("PATCH", `${U}/${userId}`, JSON.stringify({ Operations: [{ op: "add", path: "addresses", value: [{ type: "work", formatted: `a${c}b` }] }] }), 400, "invalidValue");
    }
    const formatted = "100 Universal City Plaza\nHollywood, CA 91608\tUSA";
    const res = await request(s.app).post(U).set(s.auth()).send(userBody("multiline@example.com", { addresses: [{ type: "work", formatted }] }));
    expect(res.status).toBe(201);
    expect(res.body.addresses[0].formatted).toBe(formatted);
    await request(s.app).delete(`${U}/${res.body.id}`).set(s.auth()).expect(204);
  });

  it("should refuse control characters in filter values with 400 invalidFilter, raw or escaped", async () => {
    for (const c of ["\u0000", "\u0001", "\u001b"]) {
      for (const filter of [`userName eq "a${c}b"`, `userName eq ${JSON.stringify(`a${c}b`)}`, `displayName co ${JSON.stringify(c)}`]) {
        await expectUnchanged(s.redis, s.prefix, async () => {
          expectScimError(await request(s.app).get(U).query({ filter }).set(s.auth()), 400, "invalidFilter");
          expectScimError(await request(s.app).post(`${G}/.search`).set(s.auth()).send({ filter }), 400, "invalidFilter");
        });
      }
    }
  });
});

describe("100 KB strings", () => {
  const big = (ch: string) => ch.repeat(100 * 1024 / ch.length);
  /** `n` characters (code points) of `ch`. */
  const chars = (ch: string, n: number) => ch.repeat(n);

  it("should refuse a userName, displayName or externalId past scim.maxIdentifierLength (1,024 characters), changing nothing", async () => {
    for (const ch of ["x", "é", "🙂"]) {
      await refused("POST", U, JSON.stringify(userBody(`${big(ch)}@example.com`)), 400, "invalidValue");
      await refused("POST", U, JSON.stringify(userBody("long@example.com", { displayName: chars(ch, 1025) })), 400, "invalidValue");
      await refused("POST", U, JSON.stringify(userBody("long@example.com", { externalId: chars(ch, 1025) })), 400, "invalidValue");
      await refused("PUT", `${U}/${userId}`, JSON.stringify(userBody(chars(ch, 1025))), 400, "invalidValue");
      await refused("PATCH", `${U}/${userId}`, JSON.stringify({ Operations: [{ op: "replace", path: "displayName", value: chars(ch, 1025) }] }), 400, "invalidValue");
      await refused("POST", G, JSON.stringify({ displayName: chars(ch, 1025) }), 400, "invalidValue");
      await refused("PATCH", `${G}/${groupId}`, JSON.stringify({ Operations: [{ op: "replace", path: "displayName", value: chars(ch, 1025) }] }), 400, "invalidValue");
    }
  });

  it("should store identifiers of exactly 1,024 characters (code points, not UTF-16 units) and a 100 KB title exactly", async () => {
    for (const ch of ["x", "é", "🙂"]) {
      const userName = chars(ch, 1024);
      const res = await request(s.app).post(U).set(s.auth()).send(userBody(userName, { displayName: chars(ch, 1024), externalId: chars(ch, 1024), title: big(ch) }));
      expect(res.status).toBe(201);
      const stored = await s.users.get("acme", res.body.id);
      expect(stored!.body).toMatchObject({ userName, displayName: chars(ch, 1024), title: big(ch) });
      const patched = await request(s.app).patch(`${U}/${res.body.id}`).set(s.auth()).send({ Operations: [{ op: "replace", path: "nickName", value: big(ch) }] });
      expect(patched.status).toBe(200);
      expect((await s.users.get("acme", res.body.id))!.body.nickName).toBe(big(ch));
      await request(s.app).delete(`${U}/${res.body.id}`).set(s.auth()).expect(204);

      const g = await request(s.app).post(G).set(s.auth()).send({ displayName: chars(ch, 1024) });
      expect(g.status).toBe(201);
      expect((await s.groups.get("acme", g.body.id, false))!.body.displayName).toBe(chars(ch, 1024));
      await request(s.app).delete(`${G}/${g.body.id}`).set(s.auth()).expect(204);
    }
  });
});
