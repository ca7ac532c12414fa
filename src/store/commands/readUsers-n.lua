--[[
  Reads users in one round trip, by id or through an index, with the groups each belongs to (user-store.ts).

  Input (P = "<keyPrefix>:{<directory>}:", keys.ts):
    KEYS[1]     P: the directory's prefix, for the keys the script finds in data (the u:<id> of an index
                hit, the groups g:<id> a user is in, the reverse index of includes/drainMemberOf.lua)
    KEYS[2]     <P>ix:<un|uxs|ue|udn>, the index of the mode; or, by id, KEYS[2…] <P>u:<id> of each value
    ARGV[1]     mode: "ids" | "un" (folded userName) | "uxs" (externalId) | "ue" (lower email) | "udn"
                (lower displayName) | "bare" (by id, without the groups: neither the reverse index nor the
                group names are read)
    ARGV[2…]    values

  Output: one entry per user found, in input order, each
          {id, d, v, c, m, groupId1, groupDisplayName1, groupId2, …} (no group pairs in mode "bare"); the groups
          come from the reverse index and the large groups' member hashes (includes/drainMemberOf.lua)
]]
-- @include drainMemberOf
local P, mode = KEYS[1], ARGV[1]
local bare = mode == 'bare'
if bare then mode = 'ids' end
-- each user's groups come from the reverse index: apply pending membership changes first (usually none)
if not bare and redis.call('EXISTS', P .. 'mgq') == 1 then drainMemberOf(P) end
local large = not bare and largeGroups(P)
local ids, keys, seen = {}, {}, {}
local function push(id, key)
  if id and not seen[id] then seen[id] = true; ids[#ids + 1] = id; keys[#keys + 1] = key or (P .. 'u:' .. id) end
end
for i = 2, #ARGV do
  local val = ARGV[i]
  if mode == 'ids' then push(val, KEYS[i])
  elseif mode == 'un' then push(redis.call('HGET', KEYS[2], val))
  else
    -- uxs, ue, udn: non-unique, "<value>\0<id>"
    for _, entry in ipairs(redis.call('ZRANGEBYLEX', KEYS[2], '[' .. val .. '\0', '(' .. val .. '\1')) do
      push(string.sub(entry, #val + 2))
    end
  end
end
local out = {}
for i, id in ipairs(ids) do
  local h = redis.call('HMGET', keys[i], 'd', 'v', 'c', 'm')
  if h[1] then
    local row = {id, h[1], h[2], h[3], h[4]}
    for _, gid in ipairs(large and groupsOf(P, id, large) or {}) do
      row[#row + 1] = gid
      row[#row + 1] = redis.call('HGET', P .. 'g:' .. gid, 'dn') or ''
    end
    out[#out + 1] = row
  end
end
return out
