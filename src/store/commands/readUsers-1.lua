--[[
  Reads users in one round trip, by id or through an index, with the groups each belongs to.

  Input:
    KEYS[1]  <P>users (anchor)
    ARGV[1]  <P>
    ARGV[2]  mode: "ids" | "un" (lower userName) | "ux" (externalId) | "ue" (lower email) | "udn" (lower displayName)
             | "bare" (by id, without the groups: neither the reverse index nor the group names are read)
    ARGV[3…] values

  Output: one entry per user found, in input order, each
          {id, d, v, c, m, groupId1, groupDisplayName1, groupId2, …} (no group pairs in mode "bare"); the groups
          come from the reverse index and the large groups' member hashes (includes/drainMemberOf.lua)
]]
-- @include drainMemberOf
local P, mode = ARGV[1], ARGV[2]
local bare = mode == 'bare'
if bare then mode = 'ids' end
-- each user's groups come from the reverse index: apply pending membership changes first (usually none)
if not bare and redis.call('EXISTS', P .. 'mgq') == 1 then drainMemberOf(P) end
local large = not bare and largeGroups(P)
local ids, seen = {}, {}
local function push(id) if id and not seen[id] then seen[id] = true; ids[#ids + 1] = id end end
for i = 3, #ARGV do
  local val = ARGV[i]
  if mode == 'ids' then push(val)
  elseif mode == 'un' then push(redis.call('HGET', P .. 'ix:un', val))
  else
    -- ux (externalId) is non-unique like ue and udn; ix:ux is its hash of earlier releases
    if mode == 'ux' then push(redis.call('HGET', P .. 'ix:ux', val)) end
    local ix = P .. 'ix:' .. (mode == 'ux' and 'uxs' or mode)
    for _, entry in ipairs(redis.call('ZRANGEBYLEX', ix, '[' .. val .. '\0', '(' .. val .. '\1')) do
      push(string.sub(entry, #val + 2))
    end
  end
end
local out = {}
for _, id in ipairs(ids) do
  local h = redis.call('HMGET', P .. 'u:' .. id, 'd', 'v', 'c', 'm')
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
