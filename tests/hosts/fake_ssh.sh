#!/bin/bash
# fake_ssh.sh [ssh options] HOST COMMAND: a stand-in for `ssh HOST COMMAND` when hosts are network namespaces
# (railmpi-testhosts). Like ssh it runs COMMAND with a shell on the host and passes on nothing
# but stdin, stdout and stderr: every other descriptor is closed first, so a rank started this
# way must reach mpiexec's PMI server over the network. It execs all the way down, so the
# process mpiexec started is the remote command itself and dies with it.
# ssh options some launchers add (Hydra: -x) are accepted and ignored.
while [ $# -gt 0 ]; do
  case $1 in
    -o|-p|-l|-i|-F) shift 2 ;;
    -*) shift ;;
    *) break ;;
  esac
done
[ $# -ge 2 ] || { echo "usage: fake_ssh.sh [ssh options] HOST COMMAND..." >&2; exit 255; }
host=$1
shift
[ -e "/run/netns/$host" ] || { echo "fake_ssh: $host: no such host" >&2; exit 255; }
for fd in "/proc/$$/fd"/*; do
  fd=${fd##*/}
  # 255 is bash's own script descriptor (close-on-exec).
  if [ "$fd" -gt 2 ] && [ "$fd" != 255 ]; then eval "exec $fd>&-"; fi
done
exec ip netns exec "$host" /bin/sh -c "$*"
