-- Admission of a directory's work (src/sync/admission/admission-store.ts). Every admitting script gets the
-- directory's five admission keys first, in this order, as K (KEYS):
--   K[1] <P>q:backlog   ZSET  members waiting for a slot, scored by when asked for (parked ones: 0)
--   K[2] <P>q:inflight  ZSET  members admitted (their job is in the shard), scored by admission time
--   K[3] <P>s:meta      HASH  field `paused` while the directory is paused; field `hold`: until when (ms)
--                             the platform asked it to wait (429 Retry-After)
--   K[4] <P>q:retrying  ZSET  admitted members waiting out a retry delay (their slot lent meanwhile)
--   K[5] <P>q:share     STRING members admitted since the directory was last idle for `grace` ms

-- What becomes of `member` first (op): "release" (its job finished: out of inflight and retrying),
-- "retrying" (its job waits out a retry delay: inflight -> retrying, only while it still holds a slot, as
-- BullMQ tells of the retry after moving the job, and under load the retry may have run and finished
-- already), "waiting" (out of inflight) or "" (nothing). Then moves up to cap - |inflight| members from the
-- front of the backlog into inflight, skipping members already admitted, unless the directory is paused or
-- held or 2 x cap members wait out a retry delay.
-- Returns {n, s, members admitted...}: n how many were in flight before them, so each one's turn is n + 1,
-- n + 2...; s the directory's share before them (0 for a directory that had been idle). {} when none.
local function admit(K, cap, now, grace, op, member)
  -- members the change took out of the admitted sets (a finished job's slot handed straight on is no pause)
  local freed = 0
  if op == 'release' then
    -- a member is in one of the two sets at most
    freed = redis.call('ZREM', K[2], member)
    if freed == 0 then freed = redis.call('ZREM', K[4], member) end
  elseif op == 'retrying' then
    if redis.call('ZREM', K[2], member) == 1 then redis.call('ZADD', K[4], now, member) end
  elseif op == 'waiting' then
    freed = redis.call('ZREM', K[2], member)
  end
  cap = tonumber(cap)
  if cap <= 0 then return {} end
  -- the front of the backlog first: with nothing waiting there is nothing to decide
  local candidates = redis.call('ZRANGE', K[1], 0, 4 * cap - 1)
  if #candidates == 0 then return {} end
  local stop = redis.call('HMGET', K[3], 'paused', 'hold')
  if stop[1] or (stop[2] and tonumber(stop[2]) > tonumber(now)) then return {} end
  local retrying = redis.call('ZCARD', K[4])
  if retrying >= 2 * cap then return {} end
  local free = cap - redis.call('ZCARD', K[2])
  if free <= 0 then return {} end
  -- a member admitted or retrying is not admitted again (one reconcile per resource at a time)
  local inflight = redis.call('ZMSCORE', K[2], unpack(candidates))
  local lent = redis.call('ZMSCORE', K[4], unpack(candidates))
  local out, zargs = {}, {}
  for i, m in ipairs(candidates) do
    if #out >= free then break end
    if not inflight[i] and not lent[i] then
      out[#out + 1] = m
      zargs[#zargs + 1] = now
      zargs[#zargs + 1] = m
    end
  end
  if #out == 0 then return {} end
  redis.call('ZREM', K[1], unpack(out))
  redis.call('ZADD', K[2], unpack(zargs))
  local share = '0'
  -- busy: something was admitted before this call, or within `grace` ms (the key lives that long after the
  -- last admission); INCRBY answers the new count: the share is what it was before
  if freed + (cap - free) + retrying > 0 or redis.call('EXISTS', K[5]) == 1 then
    share = tostring(redis.call('INCRBY', K[5], #out) - #out)
    redis.call('PEXPIRE', K[5], grace)
  else
    redis.call('SET', K[5], #out, 'PX', grace)
  end
  table.insert(out, 1, tostring(cap - free))
  table.insert(out, 2, share)
  return out
end

-- Adds the score/member pairs of `zargs` (a flat table) to the backlog `key`, NX: a member already there
-- keeps its place.
local function backlogAdd(key, zargs)
  for s = 1, #zargs, 2000 do redis.call('ZADD', key, 'NX', unpack(zargs, s, math.min(#zargs, s + 1999))) end
end
