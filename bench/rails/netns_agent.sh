#!/bin/bash
# netns_agent.sh [ssh options] HOST COMMAND... : an ssh stand-in for other MPIs' launchers (Open MPI's
# plm_rsh_agent, Hydra's -launcher-exec) on test hosts made by railmpi-testhosts. HOST is a network
# namespace name; the command runs inside it under a private UTS namespace whose host name is HOST,
# so the MPI sees one node per namespace.
while [[ $# -gt 0 && "$1" == -* ]]; do
  case "$1" in -o|-p|-l|-i|-F) shift 2 ;; *) shift ;; esac
done
host=$1
shift
exec ip netns exec "$host" unshare --uts /bin/sh -c "hostname '$host'; $*"
