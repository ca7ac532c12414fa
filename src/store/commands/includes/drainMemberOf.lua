--[[
  drainMemberOf(P, limit): applies pending membership changes of <P>mgq to the reverse index
  <P>mg:<member> (the groups each user or group is a member of), oldest first, up to `limit` entries
  (all when limit is nil), and removes them from <P>mgq. Returns the number of entries left.

  writeGroup appends one entry per write that changed members — fields g (group id), a (values added),
  r (values removed), each "\n"-separated — instead of touching one reverse-index set per member on the
  request path. Every script that reads the reverse index drains first, in the same atomic step, so
  readers always see it exact.

  A value's changes in one group alternate (an entry lists a value only when it really joined or left),
  so over a run of entries only a value whose first and last change agree has a net effect; add-then-
  remove and remove-then-add pairs cancel without a write.
]]
local function drainMemberOf(P, limit)
  local q = P .. 'mgq'
  local entries
  if limit then entries = redis.call('XRANGE', q, '-', '+', 'COUNT', limit) else entries = redis.call('XRANGE', q, '-', '+') end
  if #entries == 0 then return 0 end
  local first, last, order = {}, {}, {}
  for _, entry in ipairs(entries) do
    local f, g, lists = entry[2], nil, {}
    for i = 1, #f, 2 do
      if f[i] == 'g' then g = f[i + 1] elseif f[i] == 'a' or f[i] == 'r' then lists[f[i]] = f[i + 1] end
    end
    for op, list in pairs(lists) do
      for v in string.gmatch(list, '[^\n]+') do
        local k = v .. '\n' .. g
        if not first[k] then first[k] = op; order[#order + 1] = k end
        last[k] = op
      end
    end
  end
  for _, k in ipairs(order) do
    if first[k] == last[k] then
      local cut = string.find(k, '\n', 1, true)
      local v, g = string.sub(k, 1, cut - 1), string.sub(k, cut + 1)
      if last[k] == 'a' then redis.call('SADD', P .. 'mg:' .. v, g) else redis.call('SREM', P .. 'mg:' .. v, g) end
    end
  end
  if not limit then
    redis.call('DEL', q)
    return 0
  end
  local ids = {}
  for i, entry in ipairs(entries) do ids[i] = entry[1] end
  redis.call('XDEL', q, unpack(ids))
  return redis.call('XLEN', q)
end
