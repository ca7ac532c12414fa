--[[
  Deletes one user: its record, indexes and group memberships (each group it leaves gets a new version
  and an outbox entry), then appends a delete to the outbox. Atomic.

  Input:
    KEYS[1]  <P>users (anchor)
    ARGV[1]  <P>
    ARGV[2]  user id
    ARGV[3]  expected version, "" for none
    ARGV[4]  now (ISO-8601)
    ARGV[5]  request id: a committed write's result is kept under <P>rq:<request id> for ARGV[6] seconds, and a
             call that finds it there returns it without running again (see settleWrite-1.lua)
    ARGV[6]  seconds to keep that result

  Output: {"ABANDONED"} when settleWrite gave the request up before it ran, or
          {"OK"} | {"NOTFOUND"} | {"PRECONDITION", currentVersion}
]]
-- @include settledWrite
local rk = settleKey(ARGV[1], ARGV[5])
local settled = settledReply(rk)
if settled then return settled end

-- @include drainMemberOf
-- @include sortIndex

-- the write itself (left unindented)
local function run()
local P, id, expv, now = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local key = P .. 'u:' .. id
local cur = redis.call('HMGET', key, 'v', 'un', 'x', 'e', 'n', 'm')
if not cur[1] then return {'NOTFOUND'} end
if expv ~= '' and tonumber(expv) ~= tonumber(cur[1]) then return {'PRECONDITION', cur[1]} end

redis.call('HDEL', P .. 'ix:un', cur[2])
if cur[3] and cur[3] ~= '' and redis.call('HGET', P .. 'ix:ux', cur[3]) == id then redis.call('HDEL', P .. 'ix:ux', cur[3]) end
for _, ix in ipairs({{'ix:uxs', cur[3]}, {'ix:ue', cur[4]}, {'ix:udn', cur[5]}}) do
  if ix[2] and ix[2] ~= '' then
    for part in string.gmatch(ix[2], '[^\n]+') do redis.call('ZREM', P .. ix[1], part .. '\0' .. id) end
  end
end

-- referential integrity: a deleted user leaves every group it was in (the reverse index made exact first)
drainMemberOf(P)
local mg = P .. 'mg:' .. id
for _, gid in ipairs(groupsOf(P, id, largeGroups(P))) do
  if redis.call('HDEL', P .. 'gm:' .. gid, id) == 1 then
    redis.call('HSET', P .. 's:gch:' .. gid, id, redis.call('INCR', P .. 's:gcseq')) -- for the group's reconcile (groupMemberDelta-2.lua)
    local gv = redis.call('HINCRBY', P .. 'g:' .. gid, 'v', 1)
    touchGroup(P, gid, now)
    redis.call('XADD', P .. 'outbox', '*', 'k', 'group', 'id', gid, 'v', gv)
  end
end
sortEntry(P .. 'sx:u:un', cur[2], nil, id)
sortEntry(P .. 'sx:u:dn', cur[5] or '', nil, id)
sortEntry(P .. 'sx:u:m', cur[6], nil, id)
redis.call('DEL', mg, key)
redis.call('ZREM', P .. 'users', id)
redis.call('SREM', P .. 'uids', id)
redis.call('XADD', P .. 'outbox', '*', 'k', 'user', 'id', id, 'v', tonumber(cur[1]) + 1, 'op', 'delete')
return {'OK'}
end

local out = run()
-- only a committed write leaves a trace: a refused one changes nothing (its lost answer settles as 503)
keepReply(rk, out, ARGV[6])
return out
