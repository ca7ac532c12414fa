--[[
  Records a platform call in a sliding-window log if the window has room (rate-window-store.ts).

  Input:
    KEYS[1]  the window ZSET (call tokens scored by time, ms)
    ARGV[1]  now (ms)
    ARGV[2]  window (ms)
    ARGV[3]  most calls in a window
    ARGV[4]  the call's token
    ARGV[5..] pairs of (completion time ms, token) of earlier calls that completed: their entries move to
              their completion time first (XX: only those still in the window)

  Output: 0 when the call may go now (token recorded), else ms to wait
]]
if #ARGV > 4 then
  redis.call('ZADD', KEYS[1], 'XX', unpack(ARGV, 5))
end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', tonumber(ARGV[1]) - tonumber(ARGV[2]))
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[3]) then
  redis.call('ZADD', KEYS[1], ARGV[1], ARGV[4])
  redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]) * 2 + 60000)
  return 0
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return math.max(1, tonumber(oldest[2]) + tonumber(ARGV[2]) - tonumber(ARGV[1]))
