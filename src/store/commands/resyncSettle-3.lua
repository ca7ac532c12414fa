--[[
  Settles one resource of a directory's running resync (src/store/resync-store.ts).

  KEYS[1] pending set, KEYS[2] progress hash, KEYS[3] lock
  ARGV[1] "<kind>:<id>", ARGV[2] outcome field ("" counts nothing), ARGV[3] now, ARGV[4] "1": only check whether it is finished
  Counts one settled resource if the running resync waits for it; on the last one the resync is done, or,
  when it holds deprovisions for an operator, stays awaiting-confirmation (phase too) without its lock.
]]
if ARGV[4] ~= '1' then
  if redis.call('SREM', KEYS[1], ARGV[1]) == 0 then return 0 end
  if ARGV[2] ~= '' then
    redis.call('HINCRBY', KEYS[2], 'done', 1)
    redis.call('HINCRBY', KEYS[2], ARGV[2], 1)
  end
end
if redis.call('SCARD', KEYS[1]) == 0 then
  local st = redis.call('HGET', KEYS[2], 'status')
  if st == 'awaiting-confirmation' then
    redis.call('HSET', KEYS[2], 'phase', 'awaiting-confirmation')
    redis.call('DEL', KEYS[3])
  elseif st == 'running' then
    redis.call('HSET', KEYS[2], 'status', 'done', 'phase', 'done', 'finishedAt', ARGV[3])
    redis.call('DEL', KEYS[3])
  end
end
return 1
