/**
 * Acknowledging and deleting outbox entries a dispatcher has handled, as a Lua function of the dispatch
 * script (src/sync/admission/admission-store.ts `dispatch`): in one script, so an entry is never acked without being
 * deleted (it would stay in the stream for good) nor deleted while still pending (the sweeper would claim
 * a hole).
 */

/**
 * Lua: `ack_delete(stream, group, ids)` acks `ids` (a table of at most a few thousand entry ids: Lua's
 * unpack limit) of `stream` for `group` and deletes them; returns how many were deleted.
 */
export const ACK_DELETE_LUA = `
local function ack_delete(stream, group, ids)
  if #ids == 0 then return 0 end
  redis.call('XACK', stream, group, unpack(ids))
  return redis.call('XDEL', stream, unpack(ids))
end`;
