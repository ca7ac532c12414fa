--[[
  drainMemberOf(P, budget): applies pending membership changes of <P>mgq to the reverse index
  <P>mg:<member> (the groups each user or group is a member of), oldest first, and removes them from
  <P>mgq. `budget`: stop once this many member changes were applied (always at least one entry), or nil to
  apply all. Returns the number of entries left.

  writeGroup appends one entry per write that changed members — fields g (group id), a (values added),
  r (values removed), each "\n"-separated — instead of touching one reverse-index set per member on the
  request path. Every script that reads the reverse index drains first, in the same atomic step, so
  readers always see it exact. Entries are applied in order, as the writes happened.

  The budget counts members, not entries: an entry of a 256-member PATCH is 256 commands on as many keys,
  and a drain of 64 such entries held Redis for 34 ms (median; 90 ms at most, SLOWLOG under bench/scim's
  256-member PATCHes), during which every other client of that Redis, any directory's request, waited.
]]
local DRAIN_READ = 4

local function applyMemberOfEntry(P, fields)
  local g, n = nil, 0
  for i = 1, #fields, 2 do if fields[i] == 'g' then g = fields[i + 1] end end
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
