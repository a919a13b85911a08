#!/bin/sh
# Installs the Debian packages RailMPI needs to build and test, only those that are missing.
# Usage: scripts/install-deps.sh [extra packages...]
set -eu
packages="g++ make cmake libgtest-dev mpich libmpich-dev iproute2 $*"
missing=""
for p in $packages; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "install-deps: installing$missing"
if [ "$(id -u)" != 0 ]; then
  echo "install-deps: need root to install$missing (run as root or install them yourself)" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends $missing
