--[[
  Appends events to trails of one directory, each trail's in order; keeps the newest ARGV[1] of each and
  pushes its expiry back (activity-store.ts).

  Input:
    KEYS[1..n]  <P>a:<k>:<id>, the trails (STREAM, field e)
    ARGV[1]     maxEvents
    ARGV[2]     retention (seconds)
    ARGV[3…]    for each key in order: its number of events, then the events as JSON

  Output: 1
]]
local a = 3
for k = 1, #KEYS do
  local n = tonumber(ARGV[a])
  for i = a + 1, a + n do redis.call('XADD', KEYS[k], 'MAXLEN', ARGV[1], '*', 'e', ARGV[i]) end
  redis.call('EXPIRE', KEYS[k], ARGV[2])
  a = a + n + 1
end
return 1
