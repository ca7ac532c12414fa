--[[
  Recovery: re-stamps admitted members whose job still exists (XX: only those still admitted), so the next
  sweep does not look them up again before the lease has passed once more.
  KEYS[1] <P>q:inflight, KEYS[2] <P>q:retrying
  ARGV[1] now (ms), then members
]]
local args = {}
for i = 2, #ARGV do args[#args + 1] = ARGV[1]; args[#args + 1] = ARGV[i] end
for s = 1, #args, 2000 do
  local e = math.min(#args, s + 1999)
  redis.call('ZADD', KEYS[1], 'XX', unpack(args, s, e))
  redis.call('ZADD', KEYS[2], 'XX', unpack(args, s, e))
end
return 1
