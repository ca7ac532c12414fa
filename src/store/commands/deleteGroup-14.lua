--[[
  Deletes one group: its record, indexes, membership (and the reverse entries of its members), and its
  own membership in other groups; appends a delete to the outbox. Atomic.

  Input (P = "<keyPrefix>:{<directory>}:", keys.ts):
    KEYS[1]   P: the directory's prefix, for the keys the script finds in data: the groups this group is
              a member of (g:<id>, gm:<id>), its members' reverse-index sets (mg:<value>) and the reverse
              index of includes/drainMemberOf.lua
    KEYS[2]   <P>g:<id>      HASH  the group
    KEYS[3]   <P>gm:<id>     HASH  its members
    KEYS[4]   <P>mg:<id>     SET   the groups it is a member of (reverse index)
    KEYS[5]   <P>groups      ZSET
    KEYS[6]   <P>lg          SET   the directory's large groups
    KEYS[7]   <P>ix:gns      ZSET  KEYS[8] <P>ix:gn HASH (displayName; the hash of earlier releases)
    KEYS[9]   <P>ix:gxs      ZSET  KEYS[10] <P>ix:gx HASH (externalId; the hash of earlier releases)
    KEYS[11]  <P>sx:g:dn     ZSET  KEYS[12] <P>sx:g:m ZSET (sort indexes, includes/sortIndex.lua)
    KEYS[13]  <P>outbox      STREAM
    KEYS[14]  <P>rq:<request id>  STRING this request's reply once committed (see settleWrite-1.lua)
    ARGV[1]   group id
    ARGV[2]   expected version, "" for none
    ARGV[3]   now (ISO-8601)
    ARGV[4]   seconds to keep the reply under KEYS[14]

  Output: {"ABANDONED"} when settleWrite gave the request up before it ran, or
          {"OK"} | {"NOTFOUND"} | {"PRECONDITION", currentVersion}
]]
-- @include settledWrite
local settled = settledReply(KEYS[14])
if settled then return settled end

-- @include drainMemberOf
-- @include sortIndex
-- @include groupIndexes

-- the write itself (left unindented)
local function run()
local P, id, expv, now = KEYS[1], ARGV[1], ARGV[2], ARGV[3]
local key, gm = KEYS[2], KEYS[3]
local cur = redis.call('HMGET', key, 'v', 'n', 'x', 'm')
if not cur[1] then return {'NOTFOUND'} end
if expv ~= '' and tonumber(expv) ~= tonumber(cur[1]) then return {'PRECONDITION', cur[1]} end

moveGroupIndexes(id, {{KEYS[7], KEYS[8], cur[2], ''}, {KEYS[9], KEYS[10], cur[3], ''}})
drainMemberOf(P) -- the reverse index made exact first
-- a large group has no reverse-index entries to remove (includes/drainMemberOf.lua)
if redis.call('SREM', KEYS[6], id) == 0 then
  for _, v in ipairs(redis.call('HKEYS', gm)) do redis.call('SREM', P .. 'mg:' .. v, id) end
end
for _, parent in ipairs(groupsOf(P, id, largeGroups(P))) do
  if redis.call('HDEL', P .. 'gm:' .. parent, id) == 1 then
    local pg = P .. 'g:' .. parent
    local pv = redis.call('HINCRBY', pg, 'v', 1)
    -- the parent changed: its lastModified becomes now (hash and sort index)
    sortEntry(KEYS[12], redis.call('HGET', pg, 'm'), now, parent)
    redis.call('HSET', pg, 'm', now)
    redis.call('XADD', KEYS[13], '*', 'k', 'group', 'id', parent, 'v', pv)
  end
end
sortEntry(KEYS[11], cur[2] or '', nil, id)
sortEntry(KEYS[12], cur[4], nil, id)
-- UNLINK: a large group's member hash is freed off Redis's main thread, so the delete's one call does not
-- grow with the group (a large group has no reverse-index entries to visit, above)
redis.call('UNLINK', key, gm, KEYS[4])
redis.call('ZREM', KEYS[5], id)
redis.call('XADD', KEYS[13], '*', 'k', 'group', 'id', id, 'v', tonumber(cur[1]) + 1, 'op', 'delete')
return {'OK'}
end

local out = run()
-- only a committed write leaves a trace: a refused one changes nothing (its lost answer settles as 503)
keepReply(KEYS[14], out, ARGV[4])
return out
