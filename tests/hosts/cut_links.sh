#!/bin/sh
# cut_links.sh MPIEXEC_ARGS...  (used as the MPIEXEC of hosts_case.sh)
# Runs $CUT_MPIEXEC with the arguments while cutting rails of host $CUT_HOST (default 0) of the
# test hosts named by the -hosts argument: after $CUT_AT seconds the rails $CUT_RAILS (comma
# separated rail numbers) are set down with $CUT_TESTHOSTS link; after $RESTORE_AT seconds (if
# set) they are set up again. With CUT_HOW=switch, the host's ports are taken off the rails'
# bridges in the switch namespace instead (no host sees a link event: only the stall detection
# can find the cut). Every cut rail is up again when it returns. With $CUT_EXPECT
# (extended regular expressions separated by @), mpiexec's stderr must match each of them.
# Exit code: mpiexec's, or 1 when an expected line is missing.
# Five seconds before mpiexec's --timeout, if the job still runs, the TCP connections of every
# host (ss -tnio in its namespace) and the state of every process of the program go to stderr:
# what a hang looked like (hosts.2x2.failover.silent_cut hung twice in CI, not reproduced here).
set -u
host=${CUT_HOST:-0}
how=${CUT_HOW:-link}
hosts=
prev=
timeout=
program=
for a in "$@"; do
  [ "$prev" = "-hosts" ] && hosts=$a
  [ "$prev" = "--timeout" ] && timeout=$a
  case $a in /*) [ -x "$a" ] && program=$(basename "$a") ;; esac
  prev=$a
done
prefix=${hosts%%h0,*}
[ -n "$hosts" ] && [ "$prefix" != "$hosts" ] || { echo "cut_links.sh: no -hosts PREFIXh0,... argument" >&2; exit 2; }
rails=$(echo "$CUT_RAILS" | tr ',' ' ')
links() {  # links up|down
  for r in $rails; do
    if [ "$how" = switch ]; then
      if [ "$1" = down ]; then ip -n "${prefix}sw" link set "r${r}h$host" nomaster; else ip -n "${prefix}sw" link set "r${r}h$host" master "br$r"; fi
    else
      "$CUT_TESTHOSTS" link "$prefix" "$host" "$r" "$1" >/dev/null
    fi
  done
}
(
  sleep "$CUT_AT"
  links down
  if [ -n "${RESTORE_AT:-}" ]; then
    sleep "$(awk -v a="$CUT_AT" -v b="$RESTORE_AT" 'BEGIN { print b - a }')"
    links up
  fi
) &
cutter=$!
watcher=
if [ -n "$timeout" ] && [ "$timeout" -gt 5 ] && [ -n "$program" ]; then
  running=$(mktemp) || exit 1
  (
    n=0
    while [ $n -lt $((timeout - 5)) ]; do
      sleep 1
      [ -e "$running" ] || exit 0
      n=$((n + 1))
    done
    echo "cut_links.sh: the job still runs after $((timeout - 5)) s: its connections and processes" >&2
    for h in $(echo "$hosts" | tr ',' ' '); do
      echo "--- ss -tnio on $h" >&2
      ip netns exec "$h" ss -tnio >&2 2>/dev/null
    done
    for pid in $(pgrep -x "$program"); do
      echo "--- $program pid $pid: $(grep -E '^State' /proc/$pid/status) wchan $(cat /proc/$pid/wchan 2>/dev/null)" >&2
    done
  ) &
  watcher=$!
fi
err=$(mktemp) || exit 1
"$CUT_MPIEXEC" "$@" 2>"$err"
rc=$?
[ -n "$watcher" ] && rm -f "$running"
kill "$cutter" $watcher 2>/dev/null
wait "$cutter" $watcher 2>/dev/null
links up
cat "$err" >&2
if [ -n "${CUT_EXPECT:-}" ]; then
  old_ifs=$IFS
  IFS=@
  for re in $CUT_EXPECT; do
    if ! grep -Eq -- "$re" "$err"; then echo "cut_links.sh: FAIL: stderr does not match /$re/" >&2; rc=1; fi
  done
  IFS=$old_ifs
fi
rm -f "$err"
exit $rc
