--[[
  What a worker checks before running a job of a directory: paused, and how long it is still held; a
  reconcile back from a retry delay takes its slot again (retrying -> inflight).
  KEYS[1] <P>s:meta, KEYS[2] <P>q:hold, KEYS[3] <P>q:retrying, KEYS[4] <P>q:inflight
  ARGV[1] member ("" for a resync), ARGV[2] now (ms)
  Returns {paused (0/1), ms still held (negative: not held)}.
]]
local paused = redis.call('HEXISTS', KEYS[1], 'paused')
local held = redis.call('PTTL', KEYS[2])
if paused == 0 and ARGV[1] ~= '' and redis.call('ZREM', KEYS[3], ARGV[1]) == 1 then
  redis.call('ZADD', KEYS[4], ARGV[2], ARGV[1])
end
return {paused, held}
