--[[
  Takes an admitted member back into the backlog and frees its slot: a paused directory's job (parked at the
  front: score 0, LT) or a job the shard refused (at `now`, NX: a member already waiting keeps its place).
  KEYS[1] <P>q:backlog, KEYS[2] <P>q:inflight, KEYS[3] <P>q:retrying
  ARGV[1] member, ARGV[2] "front" or "now", ARGV[3] now (ms)
]]
if ARGV[2] == 'front' then
  redis.call('ZADD', KEYS[1], 'LT', 0, ARGV[1])
else
  redis.call('ZADD', KEYS[1], 'NX', ARGV[3], ARGV[1])
end
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
return 1
