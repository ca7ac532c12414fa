--[[
  The membership delta of one workforce group, computed inside Redis so only the delta leaves it (issue 11
  item 2: a one-member change to a 50,000-member group reads O(1) records).

  A member should be on the platform group when it is a user member of the SCIM group (<P>gm:<g> holds it
  with kind 'U'), the user exists on the platform (<P>s:u:<m> has a pid) and is active there (its status
  is not 'deprovisioned'). <P>s:gm:<g> holds the members applied on the platform. <P>s:gch:<g> holds the
  members (each with a change number) whose answer may have changed since the group's last reconcile: the SCIM write scripts add the
  members a request added or removed (writeGroup, deleteUser), and a user's reconcile adds the user to its
  groups when it gets or loses its platform id or is (de)activated. Only those are looked at; the hash is
  emptied of them by settleGroupMembers once the delta is on the platform, so several PATCHes before a
  reconcile yield exactly their net difference, and a failed reconcile loses nothing.

  Mode "full" looks at every SCIM member and every applied member instead (a new or re-created platform
  group, or a diff against the platform after drift), and also returns the members that should be.

  Input:
    KEYS[1]  <P>s:gch:<g> (changed members: HASH member → change number)
    KEYS[2]  <P>s:gc:<g> (earlier releases' changed members: ZSET member → change number; merged into
             KEYS[1] and deleted here, so what an earlier release recorded is looked at too)
    ARGV[1]  <P>
    ARGV[2]  group id
    ARGV[3]  "full" | ""

  Output: {seen, seenScores, addIds, addPids, removeIds, removePids, shouldIds, shouldPids, unready}
          seen: the changed members looked at, with their change numbers (to settle); removePids[i] is "" when the user has no
          platform id any more (nothing to remove on the platform); should* only in "full" mode;
          unready: user members looked at whose first sync is under way (no platform id yet, pending).
]]
local P, g, full = ARGV[1], ARGV[2], ARGV[3] == 'full'
local scim, applied = P .. 'gm:' .. g, P .. 's:gm:' .. g
if redis.call('EXISTS', KEYS[2]) == 1 then
  -- a member changed again since (recorded in KEYS[1] by this release) keeps its own, later number
  local old = redis.call('ZRANGE', KEYS[2], 0, -1, 'WITHSCORES')
  for s = 1, #old, 2 do redis.call('HSETNX', KEYS[1], old[s], old[s + 1]) end
  redis.call('DEL', KEYS[2])
end
local seenScored = redis.call('HGETALL', KEYS[1])
local seen, seenScores = {}, {}
for s = 1, #seenScored, 2 do seen[#seen + 1] = seenScored[s]; seenScores[#seenScores + 1] = seenScored[s + 1] end
local candidates = seen
if full then
  local all, have = {}, {}
  for _, list in ipairs({redis.call('HKEYS', scim), redis.call('SMEMBERS', applied), seen}) do
    for _, m in ipairs(list) do
      if not have[m] then have[m] = true; all[#all + 1] = m end
    end
  end
  candidates = all
end

local addIds, addPids, removeIds, removePids, shouldIds, shouldPids, unready = {}, {}, {}, {}, {}, {}, {}
for _, m in ipairs(candidates) do
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
return {seen, seenScores, addIds, addPids, removeIds, removePids, shouldIds, shouldPids, unready}
