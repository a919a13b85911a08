#!/bin/bash
# testhosts_case.sh TESTHOSTS PREFIX: railmpi-testhosts itself: up makes hosts with rails and
# addresses and nothing in the root namespace; shape adds and removes tc on both ends of a rail;
# link down cuts a rail; stat lists every rail; down removes everything and may be repeated.
# Exit 77 (skipped) where network namespaces cannot be made.
set -u
th=$1 p=$2
if [ "$(id -u)" != 0 ] || ! ip netns add "${p}probe" 2>/dev/null; then
  echo "SKIP: cannot create network namespaces here (needs root)"
  exit 77
fi
ip netns del "${p}probe"
trap '"$th" down "$p"' EXIT
status=0
fail() { echo "FAIL: $*"; status=1; }

# A TCP connect to a closed port answers "refused" at once when the peer is reachable.
reachable() {  # FROM_HOST ADDRESS
  ip netns exec "$1" timeout 2 bash -c "exec 3<>/dev/tcp/$2/9" 2>&1 | grep -q "refused"
}

"$th" up "$p" 3 2 >/dev/null || { echo "FAIL: up"; exit 1; }
"$th" up "$p" 3 2 >/dev/null || fail "up over a stale set"
for h in 0 1 2; do
  for r in 0 1; do
    a=$("$th" addr "$p" $h $r)
    ip -n "${p}h$h" -br addr show "rail$r" | grep -q " $a/24" || fail "${p}h$h rail$r lacks $a"
  done
done
ip -br link | grep -Eq '^(rail[0-9]|r[0-9]h[0-9])' && fail "interfaces in the root namespace"
[ "$(ip -n "${p}h1" -br link | awk '{print $1}' | sed -n 2p | cut -d@ -f1)" = rail0 ] ||
  fail "rail0 is not the first interface after lo"

a21=$("$th" addr "$p" 2 1)
reachable "${p}h0" "$("$th" addr "$p" 1 0)" || fail "h0 cannot reach h1 on rail0"
reachable "${p}h0" "$a21" || fail "h0 cannot reach h2 on rail1"
"$th" link "$p" 2 1 down || fail "link down"
reachable "${p}h0" "$a21" && fail "h2 still reachable on rail1 after link down"
reachable "${p}h0" "$("$th" addr "$p" 2 0)" || fail "h2 not reachable on rail0 while rail1 is down"
"$th" link "$p" h2 1 up || fail "link up"
sleep 0.2
reachable "${p}h0" "$a21" || fail "h2 not reachable on rail1 after link up"

"$th" shape "$p" 1 10mbit || fail "shape"
tc -n "${p}h0" qdisc show dev rail1 | grep -q htb || fail "no htb on ${p}h0 rail1"
tc -n "${p}sw" qdisc show dev r1h0 | grep -q htb || fail "no htb on the switch end r1h0"
tc -n "${p}h0" qdisc show dev rail0 | grep -q htb && fail "rail0 shaped too"
"$th" shape "$p" 1 none || fail "shape none"
tc -n "${p}h0" qdisc show dev rail1 | grep -q htb && fail "htb left after shape none"

[ "$("$th" stat "$p" | grep -c "^${p}h[0-2] *rail[01] ")" = 6 ] || fail "stat does not list 6 rails"
"$th" exec "$p" 1 cat /proc/self/net/dev | grep -q rail1 || fail "exec does not run in the host"
"$th" link "$p" 7 0 down 2>/dev/null && fail "link on a missing host succeeded"

"$th" down "$p" || fail "down"
"$th" down "$p" || fail "second down"
ip netns list | grep -q "^$p" && fail "namespaces left after down"
[ $status = 0 ] && echo "PASS testhosts"
exit $status
