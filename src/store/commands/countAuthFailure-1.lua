--[[
  Counts one failed authentication (auth-failure-store.ts); the window starts with the first failure.

  Input:
    KEYS[1]  the counter (auth-failure-keys.ts)
    ARGV[1]  window (seconds)

  Output: {count after this failure, milliseconds left in the window}
]]
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
return {n, redis.call('PTTL', KEYS[1])}
