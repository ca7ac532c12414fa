--[[
  One slice of the membership delta of one workforce group, computed inside Redis so only the delta leaves
  it. The caller (member-delta.ts) scans the members to look at, at most MEMBER_SLICE per call, and passes
  each one's sync-state key: no call looks at more than one slice, however large the group or its change
  (a 50,000-member remove is 50 calls of a few ms, not one call that holds Redis for every tenant).

  A member should be on the platform group when it is a user member of the SCIM group (<P>gm:<g> holds it
  with kind 'U'), the user exists on the platform (<P>s:u:<m> has a pid) and is active there (its status
  is not 'deprovisioned'). <P>s:gm:<g> holds the members applied on the platform. <P>s:gch:<g> holds the
  members (each with a change number) whose answer may have changed since the group's last reconcile: the
  SCIM write scripts add the members a request added or removed (writeGroup, deleteUser), a wholesale
  write adds "*" (every member: publishGroupMembers-16.lua), and a user's reconcile adds the user to its
  groups when it gets or loses its platform id or is (de)activated. settleGroupMembers takes them out
  once the delta is on the platform, and only when their change number is still the one looked at, so a
  member changed while the slices were read keeps its mark and is looked at again by the next run.

  Input:
    KEYS[1]  <P>s:gch:<g> (changed members: HASH member → change number)
    KEYS[2]  <P>s:gc:<g> (earlier releases' changed members: ZSET member → change number)
    KEYS[3]  <P>gm:<g>    KEYS[4]  <P>s:gm:<g>
    KEYS[4 + i]  <P>s:u:<member i> (mode "look")
    ARGV[1]  "legacy": merges up to ARGV[2] of KEYS[2] into KEYS[1] (a member changed again since keeps its
             own, later number) → 1 while KEYS[2] still has some, else 0
             "look": ARGV[2] "full" | "", ARGV[3…] the members → {addIds, addPids, removeIds, removePids,
             shouldIds, shouldPids, unready}; removePids[i] is "" when the user has no platform id any more
             (nothing to remove on the platform); should* only when "full"; unready: user members looked
             at whose first sync is under way
]]
if ARGV[1] == 'legacy' then
  local old = redis.call('ZRANGE', KEYS[2], 0, tonumber(ARGV[2]) - 1, 'WITHSCORES')
  for s = 1, #old, 2 do
    redis.call('HSETNX', KEYS[1], old[s], old[s + 1])
    redis.call('ZREM', KEYS[2], old[s])
  end
  return redis.call('EXISTS', KEYS[2])
end

local full = ARGV[2] == 'full'
local addIds, addPids, removeIds, removePids, shouldIds, shouldPids, unready = {}, {}, {}, {}, {}, {}, {}
for i = 3, #ARGV do
  local m = ARGV[i]
  local kind = redis.call('HGET', KEYS[3], m)
  local st = redis.call('HMGET', KEYS[4 + i - 2], 'pid', 'st')
  local pid = st[1]
  local isUser = kind ~= false and string.sub(kind, 1, 1) == 'U'
  local should = isUser and pid ~= false and st[2] ~= 'deprovisioned'
  -- a user member whose first sync is under way (pending, or not dispatched yet) gets its platform id soon
  if isUser and pid == false and (st[2] == false or st[2] == 'pending') then unready[#unready + 1] = m end
  local isApplied = redis.call('SISMEMBER', KEYS[4], m) == 1
  if should and not isApplied then
    addIds[#addIds + 1] = m; addPids[#addPids + 1] = pid
  elseif not should and isApplied then
    removeIds[#removeIds + 1] = m; removePids[#removePids + 1] = pid or ''
  end
  if full and should then shouldIds[#shouldIds + 1] = m; shouldPids[#shouldPids + 1] = pid end
end
return {addIds, addPids, removeIds, removePids, shouldIds, shouldPids, unready}
