--[[
  Reads groups in one round trip, by id or through an index, with or without their members.

  Input:
    KEYS[1]  <P>groups (anchor)
    ARGV[1]  <P>
    ARGV[2]  "1" to include members, "0" to leave them out (never loaded then), or "b<n>": include the
             members of each group, in order, while the members returned so far stay within n; a group
             whose members do not fit comes without them (its reader fetches them in slices, HSCAN)
    ARGV[3]  mode: "ids" | "gn" (lower displayName) | "gx" (externalId) | "mg" (member value)
    ARGV[4…] values

  Output: one entry per group found, each {id, d, v, c, m, memberCount, value1, extra1, value2, …}
          where extra is "<U|G><display>". A row of memberCount > 0 without members: not loaded.
]]
-- @include drainMemberOf
local P, withMembers, mode = ARGV[1], ARGV[2] == '1', ARGV[3]
-- a member budget bounds the work of one call however large the groups are
local budget = string.sub(ARGV[2], 1, 1) == 'b' and tonumber(string.sub(ARGV[2], 2)) or nil
-- "mg" reads the reverse index: apply pending membership changes first (usually none)
if mode == 'mg' and redis.call('EXISTS', P .. 'mgq') == 1 then drainMemberOf(P) end
local large = mode == 'mg' and largeGroups(P)
local ids, seen = {}, {}
local function push(id) if id and not seen[id] then seen[id] = true; ids[#ids + 1] = id end end
for i = 4, #ARGV do
  local val = ARGV[i]
  if mode == 'ids' then push(val)
  elseif mode == 'mg' then for _, gid in ipairs(groupsOf(P, val, large)) do push(gid) end
  else
    -- gn (lower displayName) and gx (externalId): non-unique, "<value>\0<id>" in ix:gns / ix:gxs;
    -- ix:gn / ix:gx are their hashes of earlier releases, read until the start-up migration moved them
    push(redis.call('HGET', P .. 'ix:' .. mode, val))
    for _, entry in ipairs(redis.call('ZRANGEBYLEX', P .. 'ix:' .. mode .. 's', '[' .. val .. '\0', '(' .. val .. '\1')) do
      push(string.sub(entry, #val + 2))
    end
  end
end
local out = {}
for _, id in ipairs(ids) do
  local h = redis.call('HMGET', P .. 'g:' .. id, 'd', 'v', 'c', 'm')
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
