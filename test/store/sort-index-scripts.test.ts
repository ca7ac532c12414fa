/**
 * The sort indexes stay true only if every script that changes what they sort by moves the entry too
 * (commands/includes/sortIndex.lua): a script that writes a user's or group's `m` (lastModified), `un` or `n`
 * field, or deletes a record, must include sortIndex or receive the sort index it moves in KEYS (`sx:`). test/scim/sort-index.test.ts proves the behaviour;
 * this catches a new or reworked script that forgets it.
 */
import fs from "node:fs";
import path from "node:path";

const DIR = path.join(__dirname, "../../src/store/commands");

describe("sort index maintenance in the store's scripts", () => {
  const scripts = fs.readdirSync(DIR).filter((f) => f.endsWith(".lua")).map((f) => ({ f, lua: fs.readFileSync(path.join(DIR, f), "utf8") }));

  it("should find the scripts that write records (a check that reads nothing proves nothing)", () => {
    expect(scripts.map((s) => s.f)).toEqual(expect.arrayContaining(["writeUser-n.lua", "deleteUser-16.lua", "writeGroup-19.lua", "deleteGroup-14.lua", "publishGroupMembers-16.lua"]));
  });

  it("should maintain the sort index in every script that sets lastModified, a sorted name, or removes a record from users/groups", () => {
    const writes = /HSET'?,\s*[^)]*'(m|un|n)'\s*,|ZREM',\s*P \.\. '(users|groups)'/;
    const maintains = (lua: string) => /^-- @include sortIndex$/m.test(lua) || /<P>sx:[ug]:/.test(lua);
    const missing = scripts.filter((s) => writes.test(s.lua) && !maintains(s.lua)).map((s) => s.f);
    expect(missing).toEqual([]);
  });
});
