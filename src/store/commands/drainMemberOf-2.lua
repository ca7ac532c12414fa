--[[
  Applies a budget of pending membership changes to the reverse index (see includes/drainMemberOf.lua);
  the store runs it in the background after group writes, so the queue stays short and readers rarely
  have anything to apply.

  Input (P = "<keyPrefix>:{<directory>}:", keys.ts):
    KEYS[1]  <P>mgq
    KEYS[2]  P: the directory's prefix, for the keys the script finds in data (the reverse-index sets
             <P>mg:<member> of the members the entries name, the large groups <P>lg)
    ARGV[1]  budget: member changes to apply before it stops (at least one entry)

  Output: entries still pending
]]
-- @include drainMemberOf
return drainMemberOf(KEYS[2], tonumber(ARGV[1]))
