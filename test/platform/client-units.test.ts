/**
 * Pure parts of the client: the https-only base URL check and Retry-After parsing.
 */
import { PlatformConfigError, createPlatformClient, parseBaseUrl, parseRetryAfter } from "../../src/platform";

describe("parseBaseUrl", () => {
  it("should refuse a non-HTTPS base URL on a remote host (Only HTTPS is accepted)", () => {
    expect(() => parseBaseUrl("http://acme.example.com/api")).toThrow(PlatformConfigError);
    expect(() => createPlatformClient({ baseUrl: "http://acme.example.com/api", apiKey: "k", deploymentId: 1 })).toThrow(/^Only HTTPS is accepted/);
  });

  it("should accept https anywhere and http on loopback hosts", () => {
    expect(parseBaseUrl("https://acme.example.com/api/")).toEqual({ origin: "https://acme.example.com", basePath: "/api" });
    for (const host of ["127.0.0.1:8090", "localhost:1", "[::1]:2"]) expect(() => parseBaseUrl(`http://${host}/api`)).not.toThrow();
  });

  it("should accept http on any host only when allowPlainHttp is set (a simulator in another container)", async () => {
    expect(parseBaseUrl("http://simulator:8090/api", true)).toEqual({ origin: "http://simulator:8090", basePath: "/api" });
    await createPlatformClient({ baseUrl: "http://simulator:8090/api", allowPlainHttp: true, apiKey: "k", deploymentId: 1 }).close();
    expect(() => parseBaseUrl("ftp://simulator/api", true)).toThrow(PlatformConfigError);
  });

  it("should refuse a URL with credentials or that is not absolute", () => {
    expect(() => parseBaseUrl("https://u:p@acme.example.com/api")).toThrow(PlatformConfigError);
    expect(() => parseBaseUrl("/api")).toThrow(PlatformConfigError);
  });
});

describe("parseRetryAfter", () => {
  it("should read delay-seconds and HTTP-dates, and ignore garbage", () => {
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(parseRetryAfter("3", now)).toBe(3000);
    expect(parseRetryAfter("Thu, 01 Jan 2026 00:00:10 GMT", now)).toBe(10_000);
    expect(parseRetryAfter("Wed, 31 Dec 2025 00:00:00 GMT", now)).toBe(0);
    expect(parseRetryAfter("soon", now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });
});
