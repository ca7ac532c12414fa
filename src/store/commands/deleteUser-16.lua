--[[
  Deletes one user: its record, indexes and group memberships (each group it leaves gets a new version
  and an outbox entry), then appends a delete to the outbox. Atomic (user-store.ts).

  Input (P = "<keyPrefix>:{<directory>}:", keys.ts):
    KEYS[1]   P: the directory's prefix, for the keys of the groups the user is found in (g:<id>, gm:<id>,
              s:gch:<id>) and the reverse index of includes/drainMemberOf.lua
    KEYS[2]   <P>u:<id>      HASH  the user
    KEYS[3]   <P>users       ZSET
    KEYS[4]   <P>uids        SET
    KEYS[5]   <P>ix:un       HASH
    KEYS[6]   <P>ix:uxs      ZSET
    KEYS[7]   <P>ix:ue       ZSET
    KEYS[8]   <P>ix:udn      ZSET
    KEYS[9]   <P>sx:u:un     ZSET  sort indexes (includes/sortIndex.lua)
    KEYS[10]  <P>sx:u:dn     ZSET
    KEYS[11]  <P>sx:u:m      ZSET
    KEYS[12]  <P>outbox      STREAM
    KEYS[13]  <P>mg:<id>     SET   the groups the user is in (reverse index)
    KEYS[14]  <P>s:gcseq     STRING change numbers of the groups' changed members (groupMemberDelta-2.lua)
    KEYS[15]  <P>sx:g:m      ZSET  the groups' lastModified sort index
    KEYS[16]  <P>rq:<request id>  STRING this request's reply once committed (see settleWrite-1.lua)
    ARGV[1]   user id
    ARGV[2]   expected version, "" for none
    ARGV[3]   now (ISO-8601)
    ARGV[4]   seconds to keep the reply under KEYS[16]

  Output: {"ABANDONED"} when settleWrite gave the request up before it ran, or
          {"OK"} | {"NOTFOUND"} | {"PRECONDITION", currentVersion}
]]
-- @include settledWrite
local settled = settledReply(KEYS[16])
if settled then return settled end

-- @include drainMemberOf
-- @include sortIndex

-- the write itself (left unindented)
local function run()
local P, id, expv, now = KEYS[1], ARGV[1], ARGV[2], ARGV[3]
local key = KEYS[2]
local cur = redis.call('HMGET', key, 'v', 'un', 'x', 'e', 'n', 'm')
if not cur[1] then return {'NOTFOUND'} end
if expv ~= '' and tonumber(expv) ~= tonumber(cur[1]) then return {'PRECONDITION', cur[1]} end

redis.call('HDEL', KEYS[5], cur[2])
for _, ix in ipairs({{KEYS[6], cur[3]}, {KEYS[7], cur[4]}, {KEYS[8], cur[5]}}) do
  if ix[2] and ix[2] ~= '' then
    for part in string.gmatch(ix[2], '[^\n]+') do redis.call('ZREM', ix[1], part .. '\0' .. id) end
  end
end

-- referential integrity: a deleted user leaves every group it was in (the reverse index made exact first)
drainMemberOf(P)
for _, gid in ipairs(groupsOf(P, id, largeGroups(P))) do
  if redis.call('HDEL', P .. 'gm:' .. gid, id) == 1 then
    redis.call('HSET', P .. 's:gch:' .. gid, id, redis.call('INCR', KEYS[14])) -- for the group's reconcile (groupMemberDelta-2.lua)
    local g = P .. 'g:' .. gid
    local gv = redis.call('HINCRBY', g, 'v', 1)
    -- the group changed: its lastModified becomes now (hash and sort index)
    sortEntry(KEYS[15], redis.call('HGET', g, 'm'), now, gid)
    redis.call('HSET', g, 'm', now)
    redis.call('XADD', KEYS[12], '*', 'k', 'group', 'id', gid, 'v', gv)
  end
end
sortEntry(KEYS[9], cur[2], nil, id)
sortEntry(KEYS[10], cur[5] or '', nil, id)
sortEntry(KEYS[11], cur[6], nil, id)
redis.call('DEL', KEYS[13], key)
redis.call('ZREM', KEYS[3], id)
redis.call('SREM', KEYS[4], id)
redis.call('XADD', KEYS[12], '*', 'k', 'user', 'id', id, 'v', tonumber(cur[1]) + 1, 'op', 'delete')
return {'OK'}
end

local out = run()
-- only a committed write leaves a trace: a refused one changes nothing (its lost answer settles as 503)
keepReply(KEYS[16], out, ARGV[4])
return out
