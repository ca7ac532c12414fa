--[[
  drainMemberOf(P, budget): applies pending membership changes of <P>mgq to the reverse index
  <P>mg:<member> (the groups each user or group is a member of), oldest first, and removes them from
  <P>mgq. `budget`: stop once this many member changes were applied (always at least one entry), or nil to
  apply all. Returns the number of entries left.

  writeGroup appends one entry per write that changed members — fields g (group id), a (values added),
  r (values removed), each "\n"-separated — instead of touching one reverse-index set per member on the
  request path. Every script that reads the reverse index drains first, in the same atomic step, so
  readers always see it exact. Entries are applied in order, as the writes happened.

  Large groups are not in the reverse index: a group that reached the directory's large-group size
  (writeGroup-19.lua, option scim.largeGroupMembers) is listed in <P>lg, its member writes queue nothing
  here, and readers find it through its member hash instead (groupsOf below). A 256-member PATCH into a
  50,000-member group then costs Redis no reverse-index work at all.

  The budget counts members, not entries: an entry of a 256-member PATCH is 256 commands on as many keys,
  and a drain of 64 such entries held Redis for 34 ms (median; 90 ms at most, SLOWLOG under bench/scim's
  256-member PATCHes), during which every other client of that Redis, any directory's request, waited.
]]
local DRAIN_READ = 4

local function applyMemberOfEntry(P, fields)
  local g, n = nil, 0
  for i = 1, #fields, 2 do if fields[i] == 'g' then g = fields[i + 1] end end
  -- a large group has no reverse-index entries (an entry for one can only come from an earlier release)
  if redis.call('SISMEMBER', P .. 'lg', g) == 1 then return 0 end
  for i = 1, #fields, 2 do
    local cmd = (fields[i] == 'a' and 'SADD') or (fields[i] == 'r' and 'SREM') or nil
    if cmd then
      for v in string.gmatch(fields[i + 1], '[^\n]+') do
        redis.call(cmd, P .. 'mg:' .. v, g)
        n = n + 1
      end
    end
  end
  return n
end

local function drainMemberOf(P, budget)
  local q = P .. 'mgq'
  if not budget then
    local entries = redis.call('XRANGE', q, '-', '+')
    if #entries == 0 then return 0 end
    for _, entry in ipairs(entries) do applyMemberOfEntry(P, entry[2]) end
    redis.call('DEL', q)
    return 0
  end
  local applied = 0
  repeat
    local entries = redis.call('XRANGE', q, '-', '+', 'COUNT', DRAIN_READ)
    if #entries == 0 then return 0 end
    local ids = {}
    for _, entry in ipairs(entries) do
      applied = applied + applyMemberOfEntry(P, entry[2])
      ids[#ids + 1] = entry[1]
      if applied >= budget then break end
    end
    redis.call('XDEL', q, unpack(ids))
  until applied >= budget
  return redis.call('XLEN', q)
end

-- largeGroups(P): the directory's large groups (<P>lg) as groupsOf takes them; read once per script
local function largeGroups(P)
  local ids, is = redis.call('SMEMBERS', P .. 'lg'), {}
  for _, g in ipairs(ids) do is[g] = true end
  return {ids = ids, is = is}
end

-- groupsOf(P, v, large): the groups <v> (a user or group id) is a member of: its reverse-index set plus
-- each large group whose member hash holds it (`large`: largeGroups(P)). A large group counts only
-- through its member hash, so an entry an earlier release left for it in the reverse index is never
-- taken for a membership. The caller drains <P>mgq first, as every reader of the index does.
local function groupsOf(P, v, large)
  local indexed = redis.call('SMEMBERS', P .. 'mg:' .. v)
  if #large.ids == 0 then return indexed end
  local out = {}
  for _, g in ipairs(indexed) do if not large.is[g] then out[#out + 1] = g end end
  for _, g in ipairs(large.ids) do
    if redis.call('HEXISTS', P .. 'gm:' .. g, v) == 1 then out[#out + 1] = g end
  end
  return out
end
