--[[
  A batch of one directory's outbox entries taken into its backlog in one step (the outbox dispatcher,
  src/sync/admission/dispatcher.ts). Marks the resources the bridge has no sync state for yet `pending` (one
  that has a status keeps it until its reconcile settles, so the reconcilers' "payload equals the last
  applied" checks hold), adds them to the backlog (one already there keeps its place), acks and deletes the
  entries (in one script, so an entry is never acked without being deleted nor deleted while still
  pending), and admits what the directory's free slots allow. Acking here is safe: what an entry asked for
  is in the backlog (or admitted) in the same step, and a member admitted whose job is never added (the
  process died before adding it) is given back by the admission recovery (SyncQueues.recover).
  KEYS[1..5] the admission keys (includes/admit.lua), KEYS[6] the outbox stream, KEYS[7] <P>s:st:pending,
  KEYS[8..] the sync-state hashes of the resources the entries name
  ARGV[1] cap, ARGV[2] now (ms), ARGV[3] share grace (ms), ARGV[4] now (ISO), ARGV[5] the consumer group,
  ARGV[6] n, ARGV[7..6+n] the entries' ids, then per resource (KEYS' order): its backlog score, its backlog
  member, its "<k>:<id>"
  Returns admit's answer (includes/admit.lua).
]]
-- @include admit
local n = tonumber(ARGV[6])
local ids = {}
for i = 1, n do ids[i] = ARGV[6 + i] end
local j = 7 + n
local zargs = {}
for i = 8, #KEYS do
  -- a resource never synced: `pending`, with when it was asked for
  if redis.call('HSETNX', KEYS[i], 'st', 'pending') == 1 then
    redis.call('HSET', KEYS[i], 't', ARGV[4])
    redis.call('SADD', KEYS[7], ARGV[j + 2])
  end
  zargs[#zargs + 1] = ARGV[j]
  zargs[#zargs + 1] = ARGV[j + 1]
  j = j + 3
end
backlogAdd(KEYS[1], zargs)
if n > 0 then
  redis.call('XACK', KEYS[6], ARGV[5], unpack(ids))
  redis.call('XDEL', KEYS[6], unpack(ids))
end
if #KEYS == 7 then return {} end
return admit(KEYS, ARGV[1], ARGV[2], ARGV[3], '', '')
