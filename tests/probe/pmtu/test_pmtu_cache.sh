#!/usr/bin/env bash
# `fragvote pmtu show` / `flush` against the kernel's own view (`ip route get`)
# in a lab src - r1 - r2 - dst with links 1500 / 1280 / 1500: a learned PMTU
# shows with its expiry, flush clears it (IPv6 per destination), an
# unprivileged user can show but not flush, and errors have their exit codes.
set -u
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lab.sh"
pmtu_need_root
pmtu_lab_up 1500 1280 1500

# The kernel's cached MTU for an address in src, "" when none (ground truth).
kernel_mtu() {
  ip netns exec "$NS_SRC" ip route get "$1" | tr '\n' ' ' | grep -o 'expires [0-9]*sec mtu [0-9]*' | awk '{print $4}'
}
shown_mtu() {
  as_nobody_in_src "$B" pmtu show "$1" | grep -o 'cached path MTU [0-9]*' | awk '{print $4}'
}

out=$(as_nobody_in_src "$B" pmtu show $DST4); rc=$?
expect_eq "$rc" 0 "unprivileged show exits 0"
case "$out" in *"no cached path MTU"*) pass "nothing cached at start";; *) fail "fresh lab shows: $out";; esac
expect_eq "$(kernel_mtu $DST4)" "" "kernel agrees nothing is cached"

# Learn PMTUs: 1-RTT discovery's too-big probes make r1 answer Frag Needed /
# Packet Too Big 1280, which fills the shared cache (also for r2's address).
for t in $DST4 $DST6 $R2_6; do as_nobody_in_src "$B" pmtu discover "$t" >/dev/null; done
for t in $DST4 $DST6 $R2_6; do
  expect_eq "$(kernel_mtu $t)" 1280 "kernel cached 1280 for $t"
  expect_eq "$(shown_mtu $t)" "$(kernel_mtu $t)" "pmtu show matches ip route get for $t"
done
exp=$(as_nobody_in_src "$B" pmtu show $DST4 | grep -o 'expires in [0-9]*' | awk '{print $3}')
if [ -n "$exp" ] && [ "$exp" -gt 500 ] && [ "$exp" -le 600 ]; then pass "expiry within mtu_expires ($exp s)"; else fail "expiry '$exp'"; fi

err=$(as_nobody_in_src "$B" pmtu flush 2>&1 >/dev/null); rc=$?
expect_eq "$rc" 3 "unprivileged flush exits 3 (missing privilege)"
case "$err" in *CAP_NET_ADMIN*) pass "the error names CAP_NET_ADMIN";; *) fail "error was: $err";; esac
expect_eq "$(kernel_mtu $DST4)" 1280 "refused flush left the cache alone"

ip netns exec "$NS_SRC" "$B" pmtu flush $DST6 >/dev/null; rc=$?
expect_eq "$rc" 0 "flush of one IPv6 host exits 0"
expect_eq "$(kernel_mtu $DST6)" "" "that host's IPv6 PMTU is gone"
expect_eq "$(kernel_mtu $R2_6)" 1280 "another IPv6 host's PMTU stays"
expect_eq "$(kernel_mtu $DST4)" 1280 "IPv4 PMTU stays"

ip netns exec "$NS_SRC" "$B" pmtu flush $DST4 >/dev/null; rc=$?
expect_eq "$rc" 0 "flush of an IPv4 host exits 0"
expect_eq "$(kernel_mtu $DST4)" "" "IPv4 PMTU is gone"
expect_eq "$(kernel_mtu $R2_6)" 1280 "IPv4 flush leaves IPv6 alone"

as_nobody_in_src "$B" pmtu discover $DST4 >/dev/null
ip netns exec "$NS_SRC" "$B" pmtu flush >/dev/null; rc=$?
expect_eq "$rc" 0 "flush of everything exits 0"
expect_eq "$(kernel_mtu $DST4)" "" "flush all clears IPv4"
expect_eq "$(kernel_mtu $R2_6)" "" "flush all clears IPv6"
expect_eq "$(shown_mtu $DST4)" "" "pmtu show agrees after flush"

# CAP_NET_ADMIN alone is enough (the `setcap cap_net_admin+ep` route): a
# non-root user holding just that capability flushes.
as_nobody_in_src "$B" pmtu discover $DST4 >/dev/null
expect_eq "$(kernel_mtu $DST4)" 1280 "relearned before the capability check"
ip netns exec "$NS_SRC" setpriv --reuid=65534 --regid=65534 --clear-groups \
  --inh-caps=-all,+net_admin --ambient-caps=+net_admin "$B" pmtu flush >/dev/null; rc=$?
expect_eq "$rc" 0 "uid 65534 with only CAP_NET_ADMIN may flush"
expect_eq "$(kernel_mtu $DST4)" "" "and the cache is gone"

# Errors: one sentence on stderr and the documented exit code.
iso="${PMTU_PREFIX}iso"
ip netns add "$iso"; ip -n "$iso" link set lo up
err=$(ip netns exec "$iso" "$B" pmtu show 192.0.2.77 2>&1); rc=$?
expect_eq "$rc" 8 "no route exits 8 (not 4: unknown host)"
case "$err" in *"no route to 192.0.2.77"*) pass "no-route sentence";; *) fail "no-route error: $err";; esac
err=$(ip netns exec "$iso" "$B" pmtu show no-such-host.invalid 2>&1); rc=$?
expect_eq "$rc" 4 "unknown host exits 4"
case "$err" in *"unknown host no-such-host.invalid"*) pass "unknown-host sentence";; *) fail "unknown-host error: $err";; esac
ip netns exec "$iso" sysctl -qw net.ipv6.conf.all.disable_ipv6=1
err=$(ip netns exec "$iso" "$B" pmtu show 2001:db8:3::2 2>&1); rc=$?
expect_eq "$rc" 5 "IPv6 disabled exits 5"
case "$err" in *"IPv6 is not available"*) pass "no-IPv6 sentence";; *) fail "no-IPv6 error: $err";; esac
ip netns del "$iso"

"$B" pmtu >/dev/null 2>&1; expect_eq "$?" 2 "no action is a usage error"
"$B" pmtu show >/dev/null 2>&1; expect_eq "$?" 2 "show without host is a usage error"
"$B" pmtu frobnicate x >/dev/null 2>&1; expect_eq "$?" 2 "unknown action is a usage error"
out=$("$B" pmtu --help); expect_eq "$?" 0 "--help exits 0"
case "$out" in *"fragvote pmtu show HOST"*) pass "--help on stdout";; *) fail "--help output: $out";; esac

pmtu_summary
