--[[
  Reads groups in one round trip, by id or through an index, with or without their members (group-store.ts).

  Input (P = "<keyPrefix>:{<directory>}:", keys.ts):
    KEYS[1]  P: the directory's prefix, for the keys the script finds in data (the g:<id> of an index hit,
             each group's member hash gm:<id>, the reverse index of includes/drainMemberOf.lua)
    KEYS[2]  <P>ix:<gns|gxs>, the index of the mode; or, by id, KEYS[2…] <P>g:<id> of each value
    ARGV[1]  "1" to include members, "0" to leave them out (never loaded then), or "b<n>": include the
             members of each group, in order, while the members returned so far stay within n; a group
             whose members do not fit comes without them (its reader fetches them in slices, HSCAN)
    ARGV[2]  mode: "ids" | "gns" (lower displayName) | "gxs" (externalId) | "mg" (member value)
    ARGV[3…] values

  Output: one entry per group found, each {id, d, v, c, m, memberCount, value1, extra1, value2, …}
          where extra is "<U|G><display>". A row of memberCount > 0 without members: not loaded.
]]
-- @include drainMemberOf
local P, withMembers, mode = KEYS[1], ARGV[1] == '1', ARGV[2]
-- a member budget bounds the work of one call however large the groups are
local budget = string.sub(ARGV[1], 1, 1) == 'b' and tonumber(string.sub(ARGV[1], 2)) or nil
-- "mg" reads the reverse index: apply pending membership changes first (usually none)
if mode == 'mg' and redis.call('EXISTS', P .. 'mgq') == 1 then drainMemberOf(P) end
local large = mode == 'mg' and largeGroups(P)
local ids, keys, seen = {}, {}, {}
local function push(id, key)
  if id and not seen[id] then seen[id] = true; ids[#ids + 1] = id; keys[#keys + 1] = key or (P .. 'g:' .. id) end
end
for i = 3, #ARGV do
  local val = ARGV[i]
  if mode == 'ids' then push(val, KEYS[i - 1])
  elseif mode == 'mg' then for _, gid in ipairs(groupsOf(P, val, large)) do push(gid) end
  else
    -- gns (lower displayName) and gxs (externalId): non-unique, "<value>\0<id>"
    for _, entry in ipairs(redis.call('ZRANGEBYLEX', KEYS[2], '[' .. val .. '\0', '(' .. val .. '\1')) do
      push(string.sub(entry, #val + 2))
    end
  end
end
local out = {}
for i, id in ipairs(ids) do
  local h = redis.call('HMGET', keys[i], 'd', 'v', 'c', 'm')
  if h[1] then
    local gm = P .. 'gm:' .. id
    local count = redis.call('HLEN', gm)
    local row = {id, h[1], h[2], h[3], h[4], count}
    if budget and count > 0 and count <= budget then
      budget = budget - count
      for _, item in ipairs(redis.call('HGETALL', gm)) do row[#row + 1] = item end
    elseif withMembers then
      for _, item in ipairs(redis.call('HGETALL', gm)) do row[#row + 1] = item end
    end
    out[#out + 1] = row
  end
end
return out
