--[[
  Applies a budget of pending membership changes to the reverse index (see includes/drainMemberOf.lua);
  the store runs it in the background after group writes, so the queue stays short and readers rarely
  have anything to apply.

  Input:
    KEYS[1]  <P>mgq
    ARGV[1]  <P>
    ARGV[2]  budget: member changes to apply before it stops (at least one entry)

  Output: entries still pending
]]
-- @include drainMemberOf
return drainMemberOf(ARGV[1], tonumber(ARGV[2]))
