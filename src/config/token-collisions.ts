/**
 * A token works only where its hash is configured, and each token must have exactly one owner: the SCIM
 * token of one directory, or an admin token. A hash listed for two directories would let one directory's
 * IdP read and write the other's users; a hash listed for a directory and for the admin API would make a
 * SCIM token an admin token. Both are refused, naming who the hash collides on.
 */

/** Where a hash is configured: the key path, and who it belongs to there. */
interface Owner {
  path: Array<string | number>;
  who: string;
}

/** One collision: the path of the later occurrence and a message naming every owner. */
export interface TokenCollision {
  path: Array<string | number>;
  message: string;
}

/** Finds hashes configured for more than one owner (the same hash twice in one directory is harmless). */
export function tokenHashCollisions(c: { directories: Array<{ id: string; tokenHashes: string[] }>; admin: { tokenHashes: string[] } }): TokenCollision[] {
  const owners = new Map<string, Owner[]>();
  const add = (hash: string, owner: Owner) => {
    const list = owners.get(hash) ?? [];
    if (!list.some((o) => o.who === owner.who)) list.push(owner);
    owners.set(hash, list);
  };
  c.directories.forEach((d, i) => d.tokenHashes.forEach((h, j) => add(h, { path: ["directories", i, "tokenHashes", j], who: `directory "${d.id}"` })));
  c.admin.tokenHashes.forEach((h, j) => add(h, { path: ["admin", "tokenHashes", j], who: "the admin API" }));
  const out: TokenCollision[] = [];
  for (const [hash, list] of owners) {
    if (list.length < 2) continue;
    const names = list.map((o) => o.who);
    const whoAll = `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}`;
    const fix = names.includes("the admin API") ? "a SCIM token must never be an admin token" : "each directory needs its own token";
    out.push({ path: list[list.length - 1].path, message: `token hash sha256:${hash.slice(0, 12)}… is configured for ${whoAll}: ${fix}; run \`scim-bridge token new <directory>\` for a fresh one` });
  }
  return out;
}
