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
if prev then
  -- a write (the mark's TTL renewed), so that a replica acknowledgement (WAIT, replica-ack.ts) that
  -- follows on this connection covers the settled write even when it ran on a connection since lost
  redis.call('EXPIRE', KEYS[1], tonumber(ARGV[1]))
  return prev
end
redis.call('SET', KEYS[1], 'ABANDONED', 'EX', tonumber(ARGV[1]))
return false
