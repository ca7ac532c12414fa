--[[
  After (part of) a group's membership delta is on the platform: records it in the applied set and takes
  the members looked at out of the changed set, unless they changed again meanwhile (their change number
  moved on). The caller (sync-state.ts settleMembers) sends the delta in slices of at most a thousand ids
  per list, so no call grows with the group.

  Each slice of an incremental settle stands on its own: what it records is on the platform already, and
  a changed member it does not reach stays marked and is looked at again. A replacement of the applied set
  (after a diff against the platform, or for a new platform group) must not be seen half done, since a
  member missing from the applied set would never be removed from the platform: it is staged, slice by
  slice, in <P>s:gms:<g>, and one publish call swaps it in (UNLINK frees the old set off the main thread).

  Input:
    KEYS[1]  <P>s:gch:<g> (changed members: HASH member → change number)
    KEYS[2]  <P>s:gm:<g> (applied members)   KEYS[3]  <P>s:gms:<g> (their replacement being staged)
    ARGV[1]  ""         add/remove to the applied set, settle seen
             "restage"  start the staged set afresh (a crashed run's stage is dropped) and add to it
             "stage"    add to the staged set
             "publish"  the staged set (none: empty) becomes the applied set; settle seen
             "replace"  a replacement that fits one slice: the applied set becomes `add` at once; settle seen
    ARGV[2]  JSON {"seen": [...], "scores": [...], "add": [...], "remove": [...]} (scores: the change numbers seen)

  Output: the number of changed members still waiting (the group's reconcile asks for another run when > 0)
]]
local mode, applied, staged = ARGV[1], KEYS[2], KEYS[3]
local d = cjson.decode(ARGV[2])
if mode == 'restage' then redis.call('UNLINK', staged) end
if mode == 'restage' or mode == 'stage' then
  if #d.add > 0 then redis.call('SADD', staged, unpack(d.add)) end
  return redis.call('HLEN', KEYS[1])
end
if mode == 'publish' then
  redis.call('UNLINK', applied)
  if redis.call('EXISTS', staged) == 1 then redis.call('RENAME', staged, applied) end
elseif mode == 'replace' then
  redis.call('UNLINK', applied, staged)
end
if #d.add > 0 then redis.call('SADD', applied, unpack(d.add)) end
if #d.remove > 0 then redis.call('SREM', applied, unpack(d.remove)) end
for i, m in ipairs(d.seen) do
  if redis.call('HGET', KEYS[1], m) == d.scores[i] then redis.call('HDEL', KEYS[1], m) end
end
return redis.call('HLEN', KEYS[1])
