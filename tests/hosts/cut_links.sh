#!/bin/sh
# cut_links.sh MPIEXEC_ARGS...  (used as the MPIEXEC of hosts_case.sh)
# Runs $CUT_MPIEXEC with the arguments while cutting rails of host 0 of the test hosts named by
# the -hosts argument: after $CUT_AT seconds the rails $CUT_RAILS (comma separated rail numbers)
# are set down with $CUT_TESTHOSTS link; after $RESTORE_AT seconds (if set) they are set up again.
# Every cut rail is up again when it returns. Exit code: mpiexec's.
set -u
hosts=
prev=
for a in "$@"; do
  [ "$prev" = "-hosts" ] && hosts=$a
  prev=$a
done
prefix=${hosts%%h0,*}
[ -n "$hosts" ] && [ "$prefix" != "$hosts" ] || { echo "cut_links.sh: no -hosts PREFIXh0,... argument" >&2; exit 2; }
rails=$(echo "$CUT_RAILS" | tr ',' ' ')
links() {  # links up|down
  for r in $rails; do "$CUT_TESTHOSTS" link "$prefix" 0 "$r" "$1" >/dev/null; done
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
"$CUT_MPIEXEC" "$@"
rc=$?
kill "$cutter" 2>/dev/null
wait "$cutter" 2>/dev/null
links up
exit $rc
