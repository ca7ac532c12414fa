-- Write settlement (see settleWrite-1.lua): the reply of a committed write is kept under <P>rq:<request id>,
-- so a write whose answer was lost can be settled, and a resend of it returns that reply without running again.

-- The key of request `requestId`'s reply under directory prefix P; nil when the call carries no request id.
local function settleKey(P, requestId)
  return requestId ~= '' and (P .. 'rq:' .. requestId) or nil
end

-- The reply of a request that already ran, {"ABANDONED"} when settleWrite gave it up, nil when it has not run.
local function settledReply(rk)
  if not rk then return nil end
  local prev = redis.call('GET', rk)
  if prev == 'ABANDONED' then return {'ABANDONED'} end
  if prev then return cjson.decode(prev) end
  return nil
end

-- Keeps a committed write's reply for `ttl` seconds (refused and no-op writes change nothing: nothing kept).
local function keepReply(rk, out, ttl)
  if rk and out[1] == 'OK' then redis.call('SET', rk, cjson.encode(out), 'EX', tonumber(ttl)) end
end
