--[[
  Deletes one group: its record, indexes, membership (and the reverse entries of its members), and its
  own membership in other groups; appends a delete to the outbox. Atomic.

  Input:
    KEYS[1]  <P>groups (anchor)
    ARGV[1]  <P>
    ARGV[2]  group id
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
local key, gm = P .. 'g:' .. id, P .. 'gm:' .. id
local cur = redis.call('HMGET', key, 'v', 'n', 'x', 'm')
if not cur[1] then return {'NOTFOUND'} end
if expv ~= '' and tonumber(expv) ~= tonumber(cur[1]) then return {'PRECONDITION', cur[1]} end

for _, ix in ipairs({{'gn', cur[2]}, {'gx', cur[3]}}) do
  if ix[2] and ix[2] ~= '' then
    redis.call('ZREM', P .. 'ix:' .. ix[1] .. 's', ix[2] .. '\0' .. id)
    if redis.call('HGET', P .. 'ix:' .. ix[1], ix[2]) == id then redis.call('HDEL', P .. 'ix:' .. ix[1], ix[2]) end
  end
end
drainMemberOf(P) -- the reverse index made exact first
-- a large group has no reverse-index entries to remove (includes/drainMemberOf.lua)
if redis.call('SREM', P .. 'lg', id) == 0 then
  for _, v in ipairs(redis.call('HKEYS', gm)) do redis.call('SREM', P .. 'mg:' .. v, id) end
end
local mg = P .. 'mg:' .. id
for _, parent in ipairs(groupsOf(P, id, largeGroups(P))) do
  if redis.call('HDEL', P .. 'gm:' .. parent, id) == 1 then
    local pv = redis.call('HINCRBY', P .. 'g:' .. parent, 'v', 1)
    touchGroup(P, parent, now)
    redis.call('XADD', P .. 'outbox', '*', 'k', 'group', 'id', parent, 'v', pv)
  end
end
sortEntry(P .. 'sx:g:dn', cur[2] or '', nil, id)
sortEntry(P .. 'sx:g:m', cur[4], nil, id)
-- UNLINK: a large group's member hash is freed off Redis's main thread, so the delete's one call does not
-- grow with the group (a large group has no reverse-index entries to visit, above)
redis.call('UNLINK', key, gm, mg)
redis.call('ZREM', P .. 'groups', id)
redis.call('XADD', P .. 'outbox', '*', 'k', 'group', 'id', id, 'v', tonumber(cur[1]) + 1, 'op', 'delete')
return {'OK'}
end

local out = run()
-- only a committed write leaves a trace: a refused one changes nothing (its lost answer settles as 503)
keepReply(rk, out, ARGV[6])
return out
