--[[
  An operator's answer to a resync awaiting confirmation (src/store/resync-store.ts): atomic on the
  progress hash, audited.

  KEYS[1] progress, KEYS[2] pending, KEYS[3] lock, KEYS[4] audit, KEYS[5] held
  ARGV[1] "confirm" | "cancel", ARGV[2] who, ARGV[3] now, ARGV[4] lock TTL (s), ARGV[5] expected resync id ("" any),
  ARGV[6] how many held items the re-check before the answer dropped (for the audit entry)
  Output: {1, resync id, count} when answered; {0, current status} when nothing awaits confirmation;
  {-1, current id} when another resync awaits it.
]]
local st = redis.call('HGET', KEYS[1], 'status')
if st ~= 'awaiting-confirmation' then return {0, st or ''} end
local rid = redis.call('HGET', KEYS[1], 'id')
if ARGV[5] ~= '' and ARGV[5] ~= rid then return {-1, rid} end
local n = redis.call('HLEN', KEYS[5])
if ARGV[1] == 'confirm' then
  redis.call('HSET', KEYS[1], 'status', 'running', 'phase', 'deprovisioning', 'confirmedBy', ARGV[2], 'confirmedAt', ARGV[3], 'confirmedCount', n)
  redis.call('SADD', KEYS[2], 'confirm:' .. rid)
  redis.call('SET', KEYS[3], rid, 'EX', tonumber(ARGV[4]))
else
  redis.call('DEL', KEYS[5])
  redis.call('HSET', KEYS[1], 'cancelledBy', ARGV[2], 'cancelledAt', ARGV[3], 'cancelledCount', n)
  if redis.call('SCARD', KEYS[2]) == 0 then
    redis.call('HSET', KEYS[1], 'status', 'done', 'phase', 'cancelled', 'finishedAt', ARGV[3])
  else
    redis.call('HSET', KEYS[1], 'status', 'running')
  end
end
redis.call('LPUSH', KEYS[4], cjson.encode({action = ARGV[1], resync = rid, by = ARGV[2], at = ARGV[3], count = n, dropped = tonumber(ARGV[6])}))
redis.call('LTRIM', KEYS[4], 0, 99)
return {1, rid, n}
