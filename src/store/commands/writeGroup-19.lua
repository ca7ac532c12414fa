--[[
  Creates or updates one group: its body (displayName, externalId, …) and its membership, applied as
  set deltas so the cost grows with the request, not with the group. Atomic; every check runs before
  the first write, so a refused request changes nothing.

  Input (P = "<keyPrefix>:{<directory>}:", keys.ts):
    KEYS[1]   P: the directory's prefix, for the keys the script finds in data: the reverse-index sets of
              members (mg:<value>, includes/drainMemberOf.lua) and, on Redis before 6.2, the u:/g: hashes
              of the values to add (includes/memberKinds.lua)
    KEYS[2]   <P>g:<id>  KEYS[3] <P>gm:<id>  KEYS[4] <P>uids  KEYS[5] <P>users  KEYS[6] <P>groups
    KEYS[7]   <P>ix:gns  KEYS[8] <P>ix:gn  KEYS[9] <P>ix:gxs  KEYS[10] <P>ix:gx (the hashes: earlier releases')
    KEYS[11]  <P>s:gcseq KEYS[12] <P>s:gch:<id> (the group's changed members, for its reconcile)
    KEYS[13]  <P>lg      KEYS[14] <P>mgq  KEYS[15] <P>sx:g:dn  KEYS[16] <P>sx:g:m  KEYS[17] <P>seq
    KEYS[18]  <P>outbox  KEYS[19] <P>rq:<request id>: this request's reply once committed (settleWrite-1.lua)
    ARGV[1]  group id
    ARGV[2]  mode: "create" | "update"
    ARGV[3]  expected version (If-Match), "" for none
    ARGV[4]  now (ISO-8601)
    ARGV[5]  oldD: body the caller read (compare-and-set on the body), "" to skip the check
    ARGV[6]  newD: new body as JSON (no id, meta or members), "" to leave the body alone
    ARGV[7]  n: displayName lower-cased                 } used only when newD is set
    ARGV[8]  x: externalId ("" when absent)             }
    ARGV[9]  dn: displayName as sent                     }
    ARGV[10] maximum members per group
    ARGV[11] the member operations as one JSON array, applied in order: [[name, values, displays?], …]
             name "add" | "remove" | "clear" | "replace"; values [value, …]; displays [display, …]
             (same length as values), left out when no member has one. One argument instead of two
             per member: a 256-member PATCH costs the client and Redis far less to send and parse.
    ARGV[12] "1" when externalId is unique in this directory (option uniqueness.externalId), else ""
    ARGV[13] seconds to keep the reply under KEYS[19]
    ARGV[14] large-group size (option scim.largeGroupMembers): a group that reaches it leaves the reverse
             index for good (includes/drainMemberOf.lua), unless the directory has ARGV[15] large groups
    ARGV[15] most large groups per directory (option scim.largeGroupsPerDirectory)
    ARGV[16] most members a clear or replace may drop in this one call ("" for no limit): past it the
             answer is {"SLICE"} and nothing is written (the caller writes in slices, group-write-slices.ts)

  Output: {"ABANDONED"} when settleWrite gave the request up before it ran, or
          {"OK", version, created, lastModified, queued} | {"NOOP", version, created, lastModified}
          (queued: "1" when the write left membership changes for the reverse index in <P>mgq, for the
          caller to ask for a drain; "0" otherwise)
          {"SLICE"} | {"CONFLICT", attribute} | {"NOTFOUND"} | {"PRECONDITION", currentVersion} | {"RETRY"}
          {"INVALID", memberValue, …} (every value to add that is no user or group of the directory, or the
          group itself) | {"TOOMANY", limit}
]]
-- @include settledWrite
local rk = KEYS[19]
local settled = settledReply(rk)
if settled then return settled end

-- @include drainMemberOf
-- @include sortIndex
-- @include groupIndexes
-- @include memberKinds
local MEMBER_OF_QUEUE_LIMIT = 256
-- member changes one write applies when the queue is over its limit (more than one 256-member entry: it shrinks)
local MEMBER_OF_DRAIN_BUDGET = 1024
-- a group becomes large only with at most this many times the large-group size indexed before the write
local LARGE_CLEANUP_MAX = 4

-- the write itself (left unindented)
local function run()
local P, id, mode, expv, now = KEYS[1], ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local oldD, newD, n, x, dn = ARGV[5], ARGV[6], ARGV[7], ARGV[8], ARGV[9]
local maxMembers = tonumber(ARGV[10])
local uniqueX = ARGV[12] == '1'
local largeSize, largeMax = tonumber(ARGV[14]), tonumber(ARGV[15])
local key, gm = KEYS[2], KEYS[3]
local exists = redis.call('EXISTS', key) == 1

if mode == 'create' and exists then return {'CONFLICT', 'id'} end
if mode == 'update' and not exists then return {'NOTFOUND'} end

local cur = {}
if exists then
  local h = redis.call('HMGET', key, 'd', 'v', 'c', 'm', 'n', 'x')
  cur = {d = h[1], v = tonumber(h[2]), c = h[3], m = h[4], n = h[5], x = h[6]}
  if expv ~= '' and tonumber(expv) ~= cur.v then return {'PRECONDITION', tostring(cur.v)} end
  if oldD ~= '' and cur.d ~= oldD then return {'RETRY'} end
end

local docChanged = newD ~= '' and newD ~= cur.d
-- RFC 7643 §4.2: a Group's displayName has uniqueness "none" (§8.7.1), and §3.1 gives externalId none;
-- only a directory that asks for it (uniqueness.externalId) refuses a repeated externalId
-- (ix:gx is the hash of earlier releases, read until the start-up migration has moved it)
if docChanged and uniqueX and x ~= '' then
  for _, entry in ipairs(redis.call('ZRANGEBYLEX', KEYS[9], '[' .. x .. '\0', '(' .. x .. '\1', 'LIMIT', 0, 2)) do
    if string.sub(entry, #x + 2) ~= id then return {'CONFLICT', 'externalId'} end
  end
  local xo = redis.call('HGET', KEYS[10], x)
  if xo and xo ~= id then return {'CONFLICT', 'externalId'} end
end

-- member operations → one delta table: value → "<U|G><display>" (present) or false (absent), and the
-- values in the order first named. Lists here are filled with counters, not t[#t + 1]: each #t searches
-- for the table's end, and per member work is most of this script under 256-member PATCHes.
local delta, order, nOrder = {}, {}, 0
-- which of the values to add are users ('U') or groups ('G') (includes/memberKinds.lua)
local BATCH = 1000
local memberOps = cjson.decode(ARGV[11])
-- a clear or replace of a group with more members than ARGV[16] is written in slices instead
-- (group-write-slices.ts), so this call does not grow with the group
if ARGV[16] and ARGV[16] ~= '' and exists then
  for _, op in ipairs(memberOps) do
    if (op[1] == 'clear' or op[1] == 'replace') and redis.call('HLEN', gm) > tonumber(ARGV[16]) then return {'SLICE'} end
  end
end
local kinds, allUsers, unlisted, nUnlisted
do
  local want, n = {}, 0
  for _, op in ipairs(memberOps) do
    if op[1] ~= 'remove' then
      local values = op[2]
      for k = 1, #values do n = n + 1; want[n] = values[k] end
    end
  end
  kinds, allUsers, unlisted, nUnlisted = memberKinds({uids = KEYS[4], users = KEYS[5], groups = KEYS[6]}, want, n, P)
end

local invalid, nInvalid, invalidSeen = {}, 0, {}
for _, memberOp in ipairs(memberOps) do
  local op, values, displays = memberOp[1], memberOp[2], memberOp[3]
  if op == 'clear' or op == 'replace' then
    if exists then
      for _, v in ipairs(redis.call('HKEYS', gm)) do
        if delta[v] == nil then nOrder = nOrder + 1; order[nOrder] = v end
        delta[v] = false
      end
    end
    for k = 1, nOrder do delta[order[k]] = false end
  end
  if op == 'remove' then
    for k = 1, #values do
      local v = values[k]
      if delta[v] == nil then nOrder = nOrder + 1; order[nOrder] = v end
      delta[v] = false
    end
  else
    for k = 1, #values do
      local v = values[k]
      local t = allUsers and 'U' or kinds[v]
      -- every value that is no user or group of this directory (or the group itself) is named in one
      -- answer, so the caller can leave them all out and write once more
      if v == id or not t then
        if not invalidSeen[v] then invalidSeen[v] = true; nInvalid = nInvalid + 1; invalid[nInvalid] = v end
        t = nil
      end
      local disp = displays and displays[k]
      if t then
        if disp and disp ~= '' then t = t .. disp end
        if delta[v] == nil then nOrder = nOrder + 1; order[nOrder] = v end
        delta[v] = t
      end
    end
  end
end
if nInvalid > 0 then
  local out = {'INVALID'}
  for k = 1, nInvalid do out[k + 1] = invalid[k] end
  return out
end

-- What changes. Values to add or re-display: their current entries read in batches (one HMGET per BATCH
-- values instead of one call per value; BATCH stays far below Lua's unpack limit of 8000), and in the same
-- pass the members to set (value, entry pairs) and those who join. Values to remove are not read: HDEL
-- answers how many it removed, which is all this script needs of them; a remove named a member only when
-- that number is above zero, and then every value named is recorded as touched (a value that was no member
-- costs the reconcile one look and the reverse index one SREM of nothing). Reading them was a second lookup
-- of each value in the member hash: without it this script counts 5% fewer instructions per PATCH under
-- bench/scim §4's add-then-remove flow (callgrind, 3.08 → 2.92 M).
local size = exists and redis.call('HLEN', gm) or 0
local sizeBefore = size
local changed = docChanged or not exists
local dels, nDels, sets, nSets, joined, nJoined = {}, 0, {}, 0, {}, 0
local adds, nAdds = {}, 0
for k = 1, nOrder do
  local v = order[k]
  if delta[v] == false then nDels = nDels + 1; dels[nDels] = v else nAdds = nAdds + 1; adds[nAdds] = v end
end
for s = 1, nAdds, BATCH do
  local e = math.min(nAdds, s + BATCH - 1)
  local got = redis.call('HMGET', gm, unpack(adds, s, e))
  for j = s, e do
    local v, was = adds[j], got[j - s + 1]
    local want = delta[v]
    if want ~= was then
      nSets = nSets + 2; sets[nSets - 1] = v; sets[nSets] = want; changed = true
      if not was then nJoined = nJoined + 1; joined[nJoined] = v; size = size + 1 end
    end
  end
end
-- the limit: removes can only help, so they are read (counted) only when the joins alone would pass it
if size > maxMembers then
  local present = 0
  for s = 1, nDels, BATCH do
    for _, was in ipairs(redis.call('HMGET', gm, unpack(dels, s, math.min(nDels, s + BATCH - 1)))) do
      if was then present = present + 1 end
    end
  end
  if size - present > maxMembers then return {'TOOMANY', tostring(maxMembers)} end
end
-- no write before this line: a refused request changes nothing
for s = 1, nUnlisted, BATCH do redis.call('SADD', KEYS[4], unpack(unlisted, s, math.min(nUnlisted, s + BATCH - 1))) end
local removed = 0
for s = 1, nDels, BATCH do removed = removed + redis.call('HDEL', gm, unpack(dels, s, math.min(nDels, s + BATCH - 1))) end
if removed > 0 then size = size - removed; changed = true else dels, nDels = {}, 0 end
for s = 1, nSets, 2 * BATCH do redis.call('HSET', gm, unpack(sets, s, math.min(nSets, s + 2 * BATCH - 1))) end
-- the members whose membership changed, for the group's reconcile (the delta is not lost between the
-- request and the reconcile: groupMemberDelta-n.lua), each with a change number; one HSET per BATCH
-- (a hash, not a sorted set: nothing reads them in order, and a ZADD of 256 members cost Redis ~0.6 µs
-- more per member than this HSET, a fifth of this script under 256-member PATCHes)
if nDels > 0 or nSets > 0 then
  -- the number as a string: Redis 7.0 formats every Lua number argument with snprintf("%.17g"), once per
  -- member here (~2.5% of Redis's CPU under 256-member PATCHes, perf)
  local seq = tostring(redis.call('INCR', KEYS[11]))
  local touched, nt = {}, 0
  for k = 1, nDels do touched[nt + 1] = dels[k]; touched[nt + 2] = seq; nt = nt + 2 end
  for k = 1, nSets, 2 do touched[nt + 1] = sets[k]; touched[nt + 2] = seq; nt = nt + 2 end
  for s = 1, nt, 2 * BATCH do redis.call('HSET', KEYS[12], unpack(touched, s, math.min(nt, s + 2 * BATCH - 1))) end
end
-- the reverse index (<P>mg:<member>) is not touched here: one entry in <P>mgq records who joined and
-- left, applied later in the background and by any script before it reads the index
-- (includes/drainMemberOf.lua), so a member PATCH costs one command here instead of one per member.
-- A large group (<P>lg) is not in the reverse index at all: its member writes queue nothing.
local queued = '0'
if (nJoined > 0 or nDels > 0) and not (exists and redis.call('SISMEMBER', KEYS[13], id) == 1) then
  -- the group becomes large: the reverse index made exact for every earlier write, then the group's
  -- entries taken out of it (its members before this write, and those this write removed); once per group.
  -- Only while that clean-up is short: it costs Redis ~5.6 µs per member before the write (281 ms for a
  -- 50,000-member group, during which every other client waits), so a group indexed before it could
  -- become large (an earlier release's, or one past the directory's cap) stays indexed beyond 4× the size
  if size >= largeSize and sizeBefore <= LARGE_CLEANUP_MAX * largeSize and redis.call('SCARD', KEYS[13]) < largeMax then
    drainMemberOf(P)
    -- a group that had no members before this write has no entries left once its queue is applied
    if sizeBefore > 0 then
      local new = {}
      for _, v in ipairs(joined) do new[v] = true end
      for _, v in ipairs(redis.call('HKEYS', gm)) do
        if not new[v] then redis.call('SREM', P .. 'mg:' .. v, id) end
      end
      for _, v in ipairs(dels) do redis.call('SREM', P .. 'mg:' .. v, id) end
    end
    redis.call('SADD', KEYS[13], id)
  else
    redis.call('XADD', KEYS[14], '*', 'g', id, 'a', table.concat(joined, '\n'), 'r', table.concat(dels, '\n'))
    queued = '1'
    -- back-pressure: when the background drain falls behind, each write applies a batch itself, so the
    -- queue (and what a reader may have to apply) stays bounded
    if redis.call('XLEN', KEYS[14]) > MEMBER_OF_QUEUE_LIMIT then drainMemberOf(P, MEMBER_OF_DRAIN_BUDGET) end
  end
end

if not changed then return {'NOOP', tostring(cur.v), cur.c, cur.m} end

if docChanged then
  -- non-unique indexes (includes/groupIndexes.lua)
  moveGroupIndexes(id, {{KEYS[7], KEYS[8], cur.n, n}, {KEYS[9], KEYS[10], cur.x, x}})
  redis.call('HSET', key, 'd', newD, 'n', n, 'x', x, 'dn', dn)
end
local v = (cur.v or 0) + 1
local c = cur.c or now
redis.call('HSET', key, 'v', v, 'c', c, 'm', now)
if docChanged then sortEntry(KEYS[15], exists and (cur.n or '') or nil, n, id) end
sortEntry(KEYS[16], cur.m, now, id)
if not exists then redis.call('ZADD', KEYS[6], redis.call('INCR', KEYS[17]), id) end
redis.call('XADD', KEYS[18], '*', 'k', 'group', 'id', id, 'v', v)
return {'OK', tostring(v), c, now, queued}
end

local out = run()
-- only a committed write leaves a trace: a refused one changes nothing (its lost answer settles as 503)
keepReply(rk, out, ARGV[13])
return out
