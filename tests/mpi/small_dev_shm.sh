#!/bin/sh
# small_dev_shm.sh MIB COMMAND...: runs COMMAND in a mount namespace whose /dev/shm is a tmpfs of
# MIB MiB (a container's is often 64 MB). Exit 77 (skipped) without root or mount namespaces.
set -u
mib=$1
shift
unshare -m true 2>/dev/null || { echo "small_dev_shm.sh: no mount namespace here - skipping"; exit 77; }
exec unshare -m sh -c 'mount -t tmpfs -o size="$0"m tmpfs /dev/shm && exec "$@"' "$mib" "$@"
