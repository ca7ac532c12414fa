--[[
  Settles a write whose answer was lost (command timeout, dropped connection): returns the result the
  write recorded, or — when it has not run — records that it was given up, so that it can never run
  afterwards (the write scripts return {"ABANDONED"} without writing when they find that mark). After
  this script answers, the write's outcome is final either way.

  Input:
    KEYS[1]  <P>rq:<request id>
    ARGV[1]  seconds to keep the mark

  Output: the JSON the write recorded (its reply), or false when it had not run (now given up)
]]
local prev = redis.call('GET', KEYS[1])
if prev then return prev end
redis.call('SET', KEYS[1], 'ABANDONED', 'EX', tonumber(ARGV[1]))
return false
