#!/bin/sh
# hosts_case.sh TESTHOSTS FAKE_SSH PREFIX NHOSTS NRAILS LAUNCHER EXPECTED_RC STDERR_RE STDOUT_RE
#               -- MPIEXEC [mpiexec options] program [args]
# Makes NHOSTS test hosts joined by NRAILS rails (railmpi-testhosts, prefix PREFIX), runs mpiexec
# on them with -hosts PREFIXh0,... and --launcher LAUNCHER, checks the result with
# ../launcher/run_case.sh, and removes the hosts again, also when the case fails or is
# interrupted. With LAUNCHER ssh, mpiexec itself runs on host 0 and starts every rank through
# FAKE_SSH (which closes inherited descriptors, so PMI goes over TCP). With LAUNCHER hydra,
# MPIEXEC is MPICH's mpiexec.hydra, run on host 0 with the same agent (its proxies connect back
# over rail0); ranks then get no RAILMPI_NODE and tell hosts apart by network namespace.
# With BUSY_RAIL=r in the environment, the case also checks afterwards that host 0 sent more
# than 1 MB on rail r and less than that on every other rail (which rail tcp chose).
# EXPECTED_RC "sigterm": instead, ../launcher/signal_case.sh runs the program (a launcher_prog)
# through this mpiexec on the hosts, sends SIGTERM to mpiexec and checks no rank survives.
# Exit 77 (ctest: skipped) with "SKIP: ..." when network namespaces cannot be made here.
set -u
testhosts=$1 fake_ssh=$2 prefix=$3 nhosts=$4 nrails=$5 launcher=$6 rc=$7 err_re=$8 out_re=$9
shift 9
[ "$1" = "--" ] && shift
mpiexec=$1
shift
here=$(cd "$(dirname "$0")" && pwd)

if [ "$(id -u)" != 0 ]; then
  echo "SKIP: test hosts need root (network namespaces)"
  exit 77
fi
if ! ip netns add "${prefix}probe" 2>/dev/null; then
  echo "SKIP: cannot create network namespaces here (ip netns add failed)"
  exit 77
fi
ip netns del "${prefix}probe"

trap '"$testhosts" down "$prefix"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
"$testhosts" up "$prefix" "$nhosts" "$nrails" >/dev/null || { echo "FAIL: railmpi-testhosts up"; exit 1; }

hosts=${prefix}h0
i=1
while [ $i -lt "$nhosts" ]; do hosts="$hosts,${prefix}h$i"; i=$((i + 1)); done

if [ "$rc" = sigterm ]; then
  wrapper=$(mktemp) || exit 1
  trap '"$testhosts" down "$prefix"; rm -f "$wrapper"' EXIT
  if [ "$launcher" = ssh ]; then
    echo "exec \"$testhosts\" exec $prefix 0 \"$mpiexec\" --launcher ssh --launcher-exec \"$fake_ssh\" -hosts $hosts \"\$@\"" >"$wrapper"
  else
    echo "exec \"$mpiexec\" --launcher $launcher -hosts $hosts \"\$@\"" >"$wrapper"
  fi
  chmod +x "$wrapper"
  sh "$here/../launcher/signal_case.sh" "$wrapper" "$1" sleep
  exit $?
fi

check_busy_rail() {  # exit status of the case in $1
  [ -n "${BUSY_RAIL:-}" ] || return "$1"
  "$testhosts" stat "$prefix" | awk -v h="${prefix}h0" -v busy="rail$BUSY_RAIL" -v rc="$1" '
    $1 == h && $2 == busy { seen = 1; if ($3 < 1000000) { print "FAIL: " h " sent " $3 " bytes on " $2; bad = 1 } }
    $1 == h && $2 != busy && $3 >= 1000000 { print "FAIL: " h " sent " $3 " bytes on " $2 " (expected " busy ")"; bad = 1 }
    END { if (!seen) { print "FAIL: no " busy " on " h; bad = 1 } exit (bad ? 1 : rc) }'
}

case $launcher in
  hydra) sh "$here/../launcher/run_case.sh" "$rc" "$err_re" "$out_re" -- \
           "$testhosts" exec "$prefix" 0 "$mpiexec" -iface rail0 -launcher ssh \
           -launcher-exec "$fake_ssh" -hosts "$hosts" "$@" ;;
  ssh) sh "$here/../launcher/run_case.sh" "$rc" "$err_re" "$out_re" -- \
         "$testhosts" exec "$prefix" 0 "$mpiexec" --launcher ssh --launcher-exec "$fake_ssh" \
         -hosts "$hosts" "$@" ;;
  *) sh "$here/../launcher/run_case.sh" "$rc" "$err_re" "$out_re" -- \
       "$mpiexec" --launcher "$launcher" -hosts "$hosts" "$@" ;;
esac
check_busy_rail $?
