--[[
  One slice of the membership delta of one workforce group, computed inside Redis so only the delta leaves
  it. The caller (member-delta.ts) calls it again with the phase and cursor it returns until the phase is
  "": no call looks at more than about `count` members, however large the group or its change (a
  50,000-member remove is 50 calls of a few ms, not one call that holds Redis for every tenant).

  A member should be on the platform group when it is a user member of the SCIM group (<P>gm:<g> holds it
  with kind 'U'), the user exists on the platform (<P>s:u:<m> has a pid) and is active there (its status
  is not 'deprovisioned'). <P>s:gm:<g> holds the members applied on the platform. <P>s:gch:<g> holds the
  members (each with a change number) whose answer may have changed since the group's last reconcile: the
  SCIM write scripts add the members a request added or removed (writeGroup, deleteUser), and a user's
  reconcile adds the user to its groups when it gets or loses its platform id or is (de)activated. Only
  those are looked at; settleGroupMembers takes them out once the delta is on the platform, and only when
  their change number is still the one looked at, so a member changed while the slices were read keeps
  its mark and is looked at again by the next run: reading in slices loses nothing.

  Phases, in this order:
    "legacy"   merges an earlier release's changed members (KEYS[2], a ZSET) into KEYS[1], deleting them
    "changed"  HSCAN of KEYS[1]: the members looked at are returned as seen, with their change numbers
               (a field "*" there stands for every member: the call goes on as in mode "full")
    "scim"     HSCAN of <P>gm:<g>  ) mode "full" only (a new or re-created platform group, or a diff
    "applied"  SSCAN of <P>s:gm:<g> ) against the platform): every SCIM and applied member is looked at
  A member may come in several phases or twice in one (HSCAN while the hash resizes); the caller keeps one.

  Input:
    KEYS[1]  <P>s:gch:<g> (changed members: HASH member → change number)
    KEYS[2]  <P>s:gc:<g> (earlier releases' changed members: ZSET member → change number)
    ARGV[1]  <P>
    ARGV[2]  group id
    ARGV[3]  "full" | ""
    ARGV[4]  phase to go on from ("legacy" to start)
    ARGV[5]  its cursor ("0" to start)
    ARGV[6]  count

  Output: {phase, cursor, seen, seenScores, addIds, addPids, removeIds, removePids, shouldIds, shouldPids, unready}
          removePids[i] is "" when the user has no platform id any more (nothing to remove on the platform);
          should* only in "full" mode; unready: user members looked at whose first sync is under way.
]]
local P, g, full, phase, cursor, count = ARGV[1], ARGV[2], ARGV[3] == 'full', ARGV[4], ARGV[5], tonumber(ARGV[6])
-- "*" among the changed members: a write replaced the members wholesale (publishGroupMembers-16.lua) and
-- marked no member one by one, so every SCIM and applied member is looked at
if not full and redis.call('HEXISTS', KEYS[1], '*') == 1 then full = true end
local scim, applied = P .. 'gm:' .. g, P .. 's:gm:' .. g
local phases = full and {'legacy', 'changed', 'scim', 'applied'} or {'legacy', 'changed'}
local at = 1
while phases[at] and phases[at] ~= phase do at = at + 1 end

-- one call goes on into the next phases while it has looked at fewer than `count` members: a small group's
-- delta is one call; a scan step that finds nothing still counts, so a call makes at most `count` steps
local candidates, seen, seenScores = {}, {}, {}
local budget = count
while at <= #phases and budget > 0 do
  local ph = phases[at]
  local found = 0
  if ph == 'legacy' then
    -- a member changed again since (recorded in KEYS[1] by this release) keeps its own, later number
    local old = redis.call('ZRANGE', KEYS[2], 0, budget - 1, 'WITHSCORES')
    for s = 1, #old, 2 do
      redis.call('HSETNX', KEYS[1], old[s], old[s + 1])
      redis.call('ZREM', KEYS[2], old[s])
    end
    found = #old / 2
    cursor = redis.call('EXISTS', KEYS[2]) == 1 and '1' or '0'
  elseif ph == 'changed' then
    local page = redis.call('HSCAN', KEYS[1], cursor, 'COUNT', budget)
    cursor = page[1]
    for s = 1, #page[2], 2 do
      seen[#seen + 1] = page[2][s]; seenScores[#seenScores + 1] = page[2][s + 1]; candidates[#candidates + 1] = page[2][s]
    end
    found = #page[2] / 2
  elseif ph == 'scim' then
    local page = redis.call('HSCAN', scim, cursor, 'COUNT', budget)
    cursor = page[1]
    for s = 1, #page[2], 2 do candidates[#candidates + 1] = page[2][s] end
    found = #page[2] / 2
  else
    local page = redis.call('SSCAN', applied, cursor, 'COUNT', budget)
    cursor = page[1]
    for _, m in ipairs(page[2]) do candidates[#candidates + 1] = m end
    found = #page[2]
  end
  budget = budget - math.max(found, 1)
  if cursor == '0' then at = at + 1 end
end

local addIds, addPids, removeIds, removePids, shouldIds, shouldPids, unready = {}, {}, {}, {}, {}, {}, {}
local looked = {}
looked['*'] = true
for _, m in ipairs(candidates) do
  if not looked[m] then
    looked[m] = true
    local kind = redis.call('HGET', scim, m)
    local st = redis.call('HMGET', P .. 's:u:' .. m, 'pid', 'st')
    local pid = st[1]
    local should = kind ~= false and string.sub(kind, 1, 1) == 'U' and pid ~= false and st[2] ~= 'deprovisioned'
    -- a user member whose first sync is under way (pending, or not dispatched yet) gets its platform id soon
    if kind ~= false and string.sub(kind, 1, 1) == 'U' and pid == false and (st[2] == false or st[2] == 'pending') then unready[#unready + 1] = m end
    local isApplied = redis.call('SISMEMBER', applied, m) == 1
    if should and not isApplied then
      addIds[#addIds + 1] = m; addPids[#addPids + 1] = pid
    elseif not should and isApplied then
      removeIds[#removeIds + 1] = m; removePids[#removePids + 1] = pid or ''
    end
    if full and should then shouldIds[#shouldIds + 1] = m; shouldPids[#shouldPids + 1] = pid end
  end
end
-- the phase and cursor to go on from; phase "" when the delta is complete
return {phases[at] or '', cursor, seen, seenScores, addIds, addPids, removeIds, removePids, shouldIds, shouldPids, unready}
