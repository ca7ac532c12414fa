--[[
  After a group's membership delta is on the platform: records it in the applied set and takes the members
  looked at out of the changed set, unless they changed again meanwhile (their change number moved on).

  Input:
    KEYS[1]  <P>s:gch:<g> (changed members: HASH member → change number)
    ARGV[1]  <P>
    ARGV[2]  group id
    ARGV[3]  "replace" to make the applied set exactly the added ids (after a diff against the platform), else ""
    ARGV[4]  JSON {"seen": [...], "scores": [...], "add": [...], "remove": [...]} (scores: the change numbers seen)

  Output: the number of changed members still waiting (the group's reconcile asks for another run when > 0)
]]
local P, g = ARGV[1], ARGV[2]
local applied = P .. 's:gm:' .. g
local d = cjson.decode(ARGV[4])
local BATCH = 1000
if ARGV[3] == 'replace' then redis.call('DEL', applied) end
for _, pair in ipairs({{'SADD', d.add}, {'SREM', d.remove}}) do
  local list = pair[2]
  for s = 1, #list, BATCH do redis.call(pair[1], applied, unpack(list, s, math.min(#list, s + BATCH - 1))) end
end
for i, m in ipairs(d.seen) do
  if redis.call('HGET', KEYS[1], m) == d.scores[i] then redis.call('HDEL', KEYS[1], m) end
end
return redis.call('HLEN', KEYS[1])
