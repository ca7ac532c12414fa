#!/bin/sh
# The image's entry point (Dockerfile ENTRYPOINT), run from /app.
#   a role, or no argument:  server | worker | all  ->  node dist/main.js <role>   (no argument: ROLE, else all)
#   anything else is a command run as given, e.g.  scim-bridge status | scim-bridge resync <directory> | sh
# `exec` hands the process over, so SIGTERM reaches node (or the command) directly.
set -e
case "${1:-}" in
  server | worker | all | "") exec node dist/main.js "$@" ;;
  *) exec "$@" ;;
esac
