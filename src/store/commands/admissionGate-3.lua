--[[
  What a worker checks before running a job of a directory: paused, and how long it is still held; a
  reconcile back from a retry delay takes its slot again (retrying -> inflight).
  KEYS[1] <P>s:meta (fields `paused`, `hold`: until when, ms), KEYS[2] <P>q:retrying, KEYS[3] <P>q:inflight
  ARGV[1] member ("" for a resync or a reconcile's first run: it holds its slot), ARGV[2] now (ms)
  Returns {paused (0/1), ms still held (0 or less: not held)}.
]]
local stop = redis.call('HMGET', KEYS[1], 'paused', 'hold')
local paused = stop[1] and 1 or 0
local held = stop[2] and (tonumber(stop[2]) - tonumber(ARGV[2])) or 0
if paused == 0 and ARGV[1] ~= '' and redis.call('ZREM', KEYS[2], ARGV[1]) == 1 then
  redis.call('ZADD', KEYS[3], ARGV[2], ARGV[1])
end
return {paused, held}
