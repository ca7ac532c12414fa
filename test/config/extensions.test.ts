/**
 * `directories[].extensions`: declared User extensions are checked at start, and a bad declaration stops
 * the process naming the key and the fix.
 */
import { createHash } from "node:crypto";
import { ConfigError, loadConfig } from "../../src/config/load";

const CUSTOM = "urn:ietf:params:scim:schemas:extension:CustomExtensionName:2.0:User";
const hash = (t: string) => createHash("sha256").update(t).digest("hex");
const dir = (over: Record<string, unknown> = {}) => ({
  id: "acme", tokenHashes: [hash("t1")], target: "workforce",
  platform: { baseUrl: "http://127.0.0.1:8090/api", deploymentId: 1, apiKeyEnv: "ACME_KEY" }, ...over,
});
const load = (over: Record<string, unknown>) => loadConfig({ env: {}, overrides: { directories: [dir(over)] } });

function expectConfigError(fn: () => unknown, ...needles: string[]) {
  let err: unknown;
  try { fn(); } catch (e) { err = e; }
  expect(err).toBeInstanceOf(ConfigError);
  for (const n of needles) expect((err as Error).message).toContain(n);
}

describe("directories[].extensions", () => {
  it("should default to none, and fill an attribute's defaults", () => {
    expect(load({}).directories[0].extensions).toEqual([]);
    const [ext] = load({ extensions: [{ urn: CUSTOM, attributes: [{ name: "CostCenterCode" }] }] }).directories[0].extensions;
    expect(ext).toEqual({ urn: CUSTOM, attributes: [{ name: "CostCenterCode", type: "string", multiValued: false, caseExact: false }], maxValueLength: 1024, maxValues: 100 });
  });

  it("should refuse bad declarations, naming the key", () => {
    expectConfigError(() => load({ extensions: [{ urn: "not a urn", attributes: [{ name: "a" }] }] }), "directories.0.extensions.0.urn", "expected a URN");
    expectConfigError(() => load({ extensions: [{ urn: "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User", attributes: [{ name: "a" }] }] }), "built in");
    expectConfigError(() => load({ extensions: [{ urn: CUSTOM, attributes: [] }] }), "at least one attribute");
    expectConfigError(() => load({ extensions: [{ urn: CUSTOM, attributes: [{ name: "a" }, { name: "A" }] }] }), "declared twice");
    expectConfigError(() => load({ extensions: [{ urn: CUSTOM, attributes: [{ name: "a" }] }, { urn: CUSTOM.toLowerCase(), attributes: [{ name: "b" }] }] }), "declared twice");
    expectConfigError(() => load({ extensions: [{ urn: CUSTOM, attributes: [{ name: "1bad" }] }] }), "RFC 7643");
    expectConfigError(() => load({ extensions: [{ urn: CUSTOM, attributes: [{ name: "a", type: "complex" }] }] }), "type");
    expectConfigError(() => load({ extensions: [{ urn: CUSTOM, attributes: [{ name: "a", mutli: true }] }] }), "multiValued");
    expectConfigError(() => load({ extensions: [{ urn: CUSTOM, attributes: [{ name: "a" }], maxValues: 5000 }] }), "maxValues");
  });

  it("should refuse an embed mapping that names an extension the directory does not declare", () => {
    const embed = { tenantName: "acme-tenant", attributeMapping: [{ scim: `${CUSTOM}:CostCenterCode`, name: "cc", type: "string" }] };
    expectConfigError(() => load({ target: "embed", embed }), "directories.0.embed.attributeMapping.0.scim", "does not declare");
    expect(load({ target: "embed", embed, extensions: [{ urn: CUSTOM, attributes: [{ name: "CostCenterCode" }] }] }).directories[0].embed?.attributeMapping).toHaveLength(1);
  });
});
