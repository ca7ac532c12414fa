/**
 * The canonical identity of a platform account: the spellings of one base URL that WHATWG URL parsing
 * makes equal (case of scheme and host, default port, dot segments, trailing dot and slashes) are one
 * account, for the ownership map, the account rate window and the external-user count; host names are
 * compared as text (localhost is not 127.0.0.1).
 */
import { accountIdentity, sameAccount } from "../../src/accounts/account-identity";
import { AccountKeys } from "../../src/accounts/account-keys";
import { platformAccountRateKey } from "../../src/store";

const ONE_ACCOUNT = [
  "https://acme.example.com/api",
  "https://ACME.example.com/api",
  "HTTPS://acme.example.com:443/api/",
  "https://acme.example.com./api",
  "https://acme.example.com/x/../api/.",
  "https://acme.example.com/api//",
];

describe("account identity", () => {
  it("should give every spelling of one account the same identity", () => {
    for (const u of ONE_ACCOUNT) expect(accountIdentity(u)).toBe("https://acme.example.com/api");
    expect(accountIdentity("http://127.0.0.1.:8090/api/.")).toBe("http://127.0.0.1:8090/api");
    expect(accountIdentity("http://127.0.0.1:80/api")).toBe("http://127.0.0.1/api");
  });

  it("should keep different hosts, ports, paths and schemes apart, and resolve no host name", () => {
    const base = "https://acme.example.com/api";
    for (const other of ["https://acme.example.com:8443/api", "https://acme.example.com/api2", "https://other.example.com/api", "http://acme.example.com/api"]) {
      expect(sameAccount(base, other)).toBe(false);
    }
    expect(sameAccount("http://localhost:8090/api", "http://127.0.0.1:8090/api")).toBe(false);
  });

  it("should key the owner map, the external-user set and the account rate window by the identity", () => {
    const keys = new AccountKeys("p");
    for (const u of ONE_ACCOUNT) {
      expect(keys.owners(u, "u")).toBe(keys.owners(ONE_ACCOUNT[0], "u"));
      expect(keys.externalUsers(u)).toBe(keys.externalUsers(ONE_ACCOUNT[0]));
      expect(platformAccountRateKey("p", u)).toBe(platformAccountRateKey("p", ONE_ACCOUNT[0]));
    }
    expect(keys.owners("https://other.example.com/api", "u")).not.toBe(keys.owners(ONE_ACCOUNT[0], "u"));
  });
});
