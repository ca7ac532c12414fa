--[[
  The last call of a sliced group write (group-write-slices.ts; the slices: stageGroupMembers-8.lua):
  checks that the group is still the version the staging began from, then makes the staged member hash
  the group's members (UNLINK of the old hash frees it off Redis's main thread, RENAME is O(1)) and
  applies the body, in one atomic step: readers see the whole write or none of it. Any write to the group
  meanwhile (a member change bumps the version: writeGroup, deleteUser, deleteGroup of a member group)
  makes it answer STALE, and the caller stages again from the start.

  The group's reconcile is told to look at every member ("*" in <P>s:gch:<id>, groupMemberDelta-n.lua)
  instead of one mark per member changed, so this call does not grow with the change either.

  Input:
    KEYS[1] <P>g:<id>       KEYS[2] <P>gm:<id>     KEYS[3] the staging hash  KEYS[4] <P>groups
    KEYS[5] <P>ix:gxs       KEYS[6] <P>ix:gx       KEYS[7] <P>ix:gns         KEYS[8] <P>ix:gn
    KEYS[9] <P>sx:g:dn      KEYS[10] <P>sx:g:m     KEYS[11] <P>seq           KEYS[12] <P>outbox
    KEYS[13] <P>s:gcseq     KEYS[14] <P>s:gch:<id> KEYS[15] <P>rq:<request id> KEYS[16] <P>lg
    ARGV[1] group id   ARGV[2] "create" | "update"   ARGV[3] the version the staging began from ("" for none)
    ARGV[4] now   ARGV[5] oldD (the body the caller read, "" to skip)   ARGV[6] newD (new body JSON, "" to keep)
    ARGV[7] n (lower displayName)   ARGV[8] x (externalId)   ARGV[9] dn (displayName as sent)
    ARGV[10] maximum members per group   ARGV[11] "1" when externalId is unique in this directory
    ARGV[12] "1" when a staged entry differs from the group's   ARGV[13] request id ("" for none)
    ARGV[14] seconds to keep the reply   ARGV[15] most large groups per directory

  Output: as writeGroup-19.lua ({"OK", version, created, lastModified, "0"} | {"NOOP", …} | {"CONFLICT", attr}
          | {"NOTFOUND"} | {"PRECONDITION", v} | {"RETRY"} | {"TOOMANY", limit} | {"ABANDONED"}), or
          {"STALE"} (stage again) | {"UNSLICED"} (a new group that cannot be large: write it in one call)
]]
-- @include settledWrite
-- @include sortIndex
-- @include groupIndexes
local rk = ARGV[13] ~= '' and KEYS[15] or nil
local settled = settledReply(rk)
if settled then return settled end

local function run()
local id, mode, v0, now = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local oldD, newD, n, x, dn = ARGV[5], ARGV[6], ARGV[7], ARGV[8], ARGV[9]
local h = redis.call('HMGET', KEYS[1], 'd', 'v', 'c', 'm', 'n', 'x')
local cur = {d = h[1], v = h[2], c = h[3], m = h[4], n = h[5], x = h[6]}
local exists = cur.v ~= false
if (cur.v or '') ~= v0 then
  -- created or deleted meanwhile: the answer a one-call write would give now
  if mode == 'create' and exists then return {'CONFLICT', 'id'} end
  if mode == 'update' and not exists then return {'NOTFOUND'} end
  return {'STALE'}
end
if oldD ~= '' and cur.d ~= oldD then return {'RETRY'} end
local docChanged = newD ~= '' and newD ~= cur.d
-- RFC 7643 §4.2 and §3.1: displayName and externalId have uniqueness "none"; only a directory that asks
-- for it (uniqueness.externalId) refuses a repeated externalId
if docChanged and ARGV[11] == '1' and x ~= '' then
  for _, entry in ipairs(redis.call('ZRANGEBYLEX', KEYS[5], '[' .. x .. '\0', '(' .. x .. '\1', 'LIMIT', 0, 2)) do
    if string.sub(entry, #x + 2) ~= id then return {'CONFLICT', 'externalId'} end
  end
  local xo = redis.call('HGET', KEYS[6], x)
  if xo and xo ~= id then return {'CONFLICT', 'externalId'} end
end
local size = redis.call('HLEN', KEYS[3])
if size > tonumber(ARGV[10]) then return {'TOOMANY', ARGV[10]} end
-- the staged hash holds only entries equal to the group's unless ARGV[12]: the same size is the same members
local membersChanged = ARGV[12] == '1' or size ~= redis.call('HLEN', KEYS[2])
if not exists then
  if redis.call('SCARD', KEYS[16]) >= tonumber(ARGV[15]) then return {'UNSLICED'} end
  redis.call('SADD', KEYS[16], id)
end
-- no write before this line: a refused request changes nothing
if membersChanged then
  redis.call('UNLINK', KEYS[2])
  if size > 0 then redis.call('RENAME', KEYS[3], KEYS[2]) end
  redis.call('HSET', KEYS[14], '*', tostring(redis.call('INCR', KEYS[13])))
end
redis.call('UNLINK', KEYS[3])
if exists and not docChanged and not membersChanged then return {'NOOP', cur.v, cur.c, cur.m} end

if docChanged then
  -- non-unique indexes (includes/groupIndexes.lua)
  moveGroupIndexes(id, {{KEYS[7], KEYS[8], cur.n, n}, {KEYS[5], KEYS[6], cur.x, x}})
  redis.call('HSET', KEYS[1], 'd', newD, 'n', n, 'x', x, 'dn', dn)
end
local v = (tonumber(cur.v) or 0) + 1
local c = cur.c or now
redis.call('HSET', KEYS[1], 'v', v, 'c', c, 'm', now)
if docChanged then sortEntry(KEYS[9], exists and (cur.n or '') or nil, n, id) end
sortEntry(KEYS[10], cur.m, now, id)
if not exists then redis.call('ZADD', KEYS[4], redis.call('INCR', KEYS[11]), id) end
redis.call('XADD', KEYS[12], '*', 'k', 'group', 'id', id, 'v', v)
return {'OK', tostring(v), c, now, '0'}
end

local out = run()
-- only a committed write leaves a trace: a refused one changes nothing (its lost answer settles as 503)
keepReply(rk, out, ARGV[14])
return out
