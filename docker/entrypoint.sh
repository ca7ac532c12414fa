#!/bin/sh
# The image's entry point (Dockerfile ENTRYPOINT), run from /app.
#   a role, or no argument:  server | worker | all  ->  node dist/main.js <role>   (no argument: ROLE, else all)
#     with --max-semi-space-size=8: V8's young generation grows to 3 x 16 MiB under allocation-heavy load by
#     default; bench/scim's server peaked at ~145 MiB RSS at 50 connections with 16 MiB semi-spaces, ~125 MiB
#     with 8 and ~115 MiB with 4; at 4 it spent ~20% of its CPU in GC under 256-member PATCHes (1,242
#     scavenges of ~2 ms: 50 requests in flight keep their bodies live), and 8 used 10-20% less CPU per
#     PATCH and passed the lookup goal that 4 failed, for ~10 MiB more RSS (bench/scim, 2 runs each);
#     with --heap-growing-percent=50: V8 lets the old generation grow to up to ~4x what was live after the last
#     full GC before it collects again; at 1.5x a worker of 1,000 directories peaked at ~171 MiB instead of
#     ~308 MiB under bench/scale's push (its live heap is ~40-60 MiB), at the cost of more frequent full GCs
#     a worker gets --max-semi-space-size=16 instead: at 4 MiB it spent ~16% of its CPU in scavenges under
#     bench/scale's push on a Redis Cluster; at 16 MiB the 3 workers' CPU fell by 23% (17.1 -> 13.1 s each,
#     1,000 directories x 30 users) and push throughput rose 12%, for ~15 MiB more RSS per worker
#   anything else is a command run as given, e.g.  scim-bridge status | scim-bridge resync <directory> | sh
# `exec` hands the process over, so SIGTERM reaches node (or the command) directly.
set -e
case "${1:-}" in
  worker) exec node --max-semi-space-size=16 --heap-growing-percent=50 dist/main.js "$@" ;;
  server | all | "") exec node --max-semi-space-size=8 --heap-growing-percent=50 dist/main.js "$@" ;;
  *) exec "$@" ;;
esac
