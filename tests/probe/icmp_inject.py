#!/usr/bin/env python3
"""Forged and unrelated ICMP for the probe's raw socket (tests/probe/test_icmp_forgery.c).

Run inside a lab router's namespace (ip netns exec <prefix>-r1 ...). Sends,
for DURATION seconds at RATE packets/s, to VICTIM (the lab src address) a mix
of ICMP messages that must never change a test's answer:
  - echo requests and replies (other traffic),
  - errors quoting other traffic: right addresses and port, but a source port
    below 1024 (the probe's is ephemeral) -- Frag Needed, Time Exceeded,
    Port Unreachable, with DF/MF/offset set to flip the answer if believed,
  - errors quoting a non-first fragment with IP IDs the test does not use,
  - errors quoting a packet from another source address,
  - truncated errors (quote of 0, 8, 20, 24 bytes) and garbage.
IPv6 (-6): the same kinds as ICMPv6 (kernel computes the checksum).
Prints "ready" once it starts sending and exits 1 if nothing could be sent. Only documentation prefixes are used by the lab.
"""
import random
import socket
import struct
import sys
import time


def csum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    s = (s >> 16) + (s & 0xFFFF)
    s += s >> 16
    return (~s) & 0xFFFF


def ip4(src, dst, proto, payload, ident=0x4242, df=0, mf=0, off=0, ttl=1, total=None):
    flags = (df << 14) | (mf << 13) | (off // 8)
    tl = total if total is not None else 20 + len(payload)
    h = struct.pack("!BBHHHBBH4s4s", 0x45, 0, tl, ident, flags, ttl, proto, 0,
                    socket.inet_aton(src), socket.inet_aton(dst))
    h = h[:10] + struct.pack("!H", csum(h)) + h[12:]
    return h + payload


def icmp4(typ, code, rest, body):
    m = struct.pack("!BBHI", typ, code, 0, rest) + body
    return m[:2] + struct.pack("!H", csum(m)) + m[4:]


def udp(sport, dport, n):
    return struct.pack("!HHHH", sport, dport, 8 + n, 0) + b"\0" * n


def forged4(me, victim, target, dport):
    out = []
    rnd = random.Random(7)
    for _ in range(8):
        sp = rnd.randrange(1, 1024)
        # Quotes of "other traffic": right addresses and port, wrong source port.
        whole_df = ip4(victim, target, 17, udp(sp, dport, 32), df=1, total=1400)
        first_frag = ip4(victim, target, 17, udp(sp, dport, 32), mf=1, total=1276)
        out.append(icmp4(3, 4, 576, first_frag))                # Frag Needed, quotes a fragment
        out.append(icmp4(3, 4, 552, whole_df))                  # Frag Needed, tiny MTU
        out.append(icmp4(11, 0, 0, first_frag))                 # Time Exceeded quoting a fragment
        out.append(icmp4(11, 0, 0, ip4(victim, target, 17, udp(sp, dport, 32), total=3000)))
        out.append(icmp4(3, 3, 0, whole_df))                    # Port unreachable
        # Non-first fragments with IDs this test never used.
        for ident in (0x1357, 0x2468, 0x7FFF, 0xBEEF):
            out.append(icmp4(11, 0, 0, ip4(victim, target, 17, b"\0" * 64, ident=ident, off=1256, mf=1, total=1276)))
            out.append(icmp4(3, 4, 1000, ip4(victim, target, 17, b"\0" * 64, ident=ident, off=1480, total=1500)))
        # Another source address, everything else plausible.
        out.append(icmp4(11, 0, 0, ip4("198.51.100.1", target, 17, udp(40000, dport, 32), mf=1, total=1276)))
    # Truncated quotes and garbage.
    q = ip4(victim, target, 17, udp(5, dport, 32), mf=1, total=1276)
    for n in (0, 8, 20, 24):
        out.append(icmp4(11, 0, 0, q[:n]))
        out.append(icmp4(3, 4, 576, q[:n]))
    out.append(icmp4(11, 0, 0, b"\x60" + q[1:28]))               # IPv6 version nibble in an IPv4 quote
    out.append(icmp4(11, 0, 0, b"\x4f" + q[1:28]))               # header length 60, quote shorter
    out.append(b"\x0b\x00")                                       # 2-byte ICMP
    out.append(icmp4(8, 0, 0x1234, b"ping" * 8))                 # echo request
    out.append(icmp4(0, 0, 0x1234, b"pong" * 8))                 # echo reply
    return out


def ip6(src, dst, nxt, payload, plen=None):
    return struct.pack("!IHBB16s16s", 0x60000000, plen if plen is not None else len(payload), nxt, 1,
                       socket.inet_pton(socket.AF_INET6, src), socket.inet_pton(socket.AF_INET6, dst)) + payload


def icmp6(typ, code, rest, body):
    return struct.pack("!BBHI", typ, code, 0, rest) + body  # the kernel fills the checksum


def forged6(me, victim, target, dport):
    out = []
    rnd = random.Random(9)
    for _ in range(8):
        sp = rnd.randrange(1, 1024)
        whole = ip6(victim, target, 17, udp(sp, dport, 32), plen=2960)
        frag = ip6(victim, target, 44, struct.pack("!BBHI", 17, 0, 1, 0x13572468) + udp(sp, dport, 32), plen=1232)
        out.append(icmp6(2, 0, 1280, frag))                      # PTB quoting a fragment
        out.append(icmp6(3, 0, 0, frag))                         # Time Exceeded quoting a fragment
        out.append(icmp6(3, 0, 0, whole))                        # ... a whole big packet
        out.append(icmp6(1, 4, 0, whole))                        # port unreachable
        for ident in (0x11111111, 0x22222222, 0x7FFFFFFF):
            nf = ip6(victim, target, 44, struct.pack("!BBHI", 17, 0, (1232 & ~7) | 1, ident) + b"\0" * 64, plen=1232)
            out.append(icmp6(3, 0, 0, nf))
        out.append(icmp6(3, 0, 0, ip6("2001:db8:2::1", target, 17, udp(40000, dport, 32))))
    q = ip6(victim, target, 17, udp(5, dport, 32))
    for n in (0, 8, 40, 44):
        out.append(icmp6(3, 0, 0, q[:n]))
        out.append(icmp6(2, 0, 1280, q[:n]))
    out.append(icmp6(128, 0, 0x12340001, b"ping" * 8))
    out.append(icmp6(129, 0, 0x12340001, b"pong" * 8))
    return out


def main():
    args = sys.argv[1:]
    v6 = args and args[0] == "-6"
    if v6:
        args = args[1:]
    if len(args) != 6:
        sys.stderr.write("usage: icmp_inject.py [-6] ME VICTIM TARGET DPORT SECONDS RATE\n")
        return 2
    me, victim, target, dport, secs, rate = args[0], args[1], args[2], int(args[3]), float(args[4]), int(args[5])
    if v6:
        s = socket.socket(socket.AF_INET6, socket.SOCK_RAW, socket.IPPROTO_ICMPV6)
        pkts = forged6(me, victim, target, dport)
        dest = (victim, 0)
    else:
        s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
        pkts = [ip4(me, victim, 1, p, ident=random.randrange(1, 65535), ttl=64) for p in forged4(me, victim, target, dport)]
        dest = (victim, 0)
    print("ready", flush=True)
    sent = 0
    end = time.monotonic() + secs
    gap = 1.0 / rate
    nxt = time.monotonic()
    i = 0
    while time.monotonic() < end:
        try:
            s.sendto(pkts[i % len(pkts)], dest)
            sent += 1
        except OSError:
            pass
        i += 1
        nxt += gap
        d = nxt - time.monotonic()
        if d > 0:
            time.sleep(d)
    return 0 if sent else 1


if __name__ == "__main__":
    sys.exit(main())
