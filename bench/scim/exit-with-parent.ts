/**
 * Preloaded (`node -r`) into the bench's server children: when the bench process goes away without
 * stopping them (killed, crashed), the IPC channel closes and the child exits instead of lingering.
 */
if (process.send) {
  process.on("disconnect", () => process.exit(0));
  process.channel?.unref();
}
