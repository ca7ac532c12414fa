--[[
  A user's reconcile changed what its groups should hold on the platform (it got or lost its platform id,
  or was deactivated or reactivated): adds the user to each group's changed members <P>s:gch:<g> (a HASH
  member → change number from <P>s:gcseq, so a reconcile settles only the changes it looked at).

  Returns the groups whose changed set was empty: only those need a reconcile asked for. A non-empty set
  already has a reconcile coming that has not settled it yet, and that reconcile asks for another run when
  members are still waiting after it settled (settleGroupMembers), so nothing is lost. This is what keeps
  a user's sync from adding a follow-up job per group.

  Input (P = "<keyPrefix>:{<directory>}:", keys.ts):
    KEYS[1]  P: the directory's prefix, for the keys the script finds in data: each group's changed members
             <P>s:gch:<g>, the large groups' member hashes and the reverse index of includes/drainMemberOf.lua
    KEYS[2]  <P>s:gcseq (change numbers)   KEYS[3] <P>mgq   KEYS[4] <P>mg:<user id>   KEYS[5] <P>lg
    ARGV[1]  user id
    ARGV[2…] group ids, or the single value "*": the groups the user is a member of now, read here from the
             reverse index KEYS[4] (after draining KEYS[3], as every reader of it does) and the large groups'
             member hashes (includes/drainMemberOf.lua). The caller sends this right behind its sync-state
             write, so the groups are read after that write, in one round trip with it.
]]
-- @include drainMemberOf
local P, id = KEYS[1], ARGV[1]
local groups = {}
if ARGV[2] == '*' and #ARGV == 2 then
  if redis.call('EXISTS', KEYS[3]) == 1 then drainMemberOf(P) end
  groups = groupsOf(P, id, largeGroups(P))
else
  for i = 2, #ARGV do groups[#groups + 1] = ARGV[i] end
end
local out = {}
if #groups == 0 then return out end
local seq = redis.call('INCR', KEYS[2])
for _, g in ipairs(groups) do
  local key = P .. 's:gch:' .. g
  local before = redis.call('HLEN', key)
  redis.call('HSET', key, id, seq)
  if before == 0 then out[#out + 1] = g end
end
return out
