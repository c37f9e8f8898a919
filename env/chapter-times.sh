#!/usr/bin/env bash
# Print how long each chapter took to execute in a jupyter-book build log (myst-nb's lines).
# Usage: env/chapter-times.sh BUILD_LOG
set -uo pipefail
log=${1:?usage: env/chapter-times.sh BUILD_LOG}
awk '
  /Executing notebook|reading sources\]/ { if (match($0, /book\/[^ ]+/)) page = substr($0, RSTART, RLENGTH) }
  /Executed notebook in/ { for (i = 1; i <= NF; i++) if ($i == "in") secs = $(i + 1); total += secs;
                           printf "chapter time: %-60s %8.1f s\n", page, secs }
  /Using cached notebook outputs/ { printf "chapter time: %-60s   cached\n", page }
  END { if (total) printf "chapter time: %-60s %8.1f s\n", "all executed chapters", total }
' "$log"
