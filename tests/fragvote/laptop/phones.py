#!/usr/bin/env python3
"""Phones for the hosted-room tests: N audience websockets (ws:// or wss://,
stdlib only) that join a room, vote once on every question while it is open
(phone i says yes unless (i + position) % 3 == 0), and log every vote, ack
and error with its time. They stop when the quiz has ended, on SIGTERM, or
after --max-s seconds; then one JSON line on stdout:
  {"phones":N,"joined":J,"sent":S,"acked":A,"errors":E,"acks":[[t,phone,q],...],
   "reveals":{"POS":"TRUTH",...},"ended":true,"rtt":[...]}
URL may be the join URL a phone opens (http(s)://HOST:PORT/?room=CODE): its
room is joined, and with check=1 in it (`fragvote check --phone`) each phone
does what the phone page does: once welcomed, 5 ping/pong exchanges 200 ms
apart, timed, then {"t":"rtt","n":5,"median_ms":..,"max_ms":..}; "rtt" lists
each report sent, with "ok" once the hub answered rtt_ok.
--path-delay-ms D: each phone's bytes to the hub cross a relay in this process
(on loopback) that holds them D ms before sending them on: a slow path.
usage: phones.py URL [--phones N] [--room CODE] [--src ADDR,...] [--max-s S] [--cafile FILE]
                 [--path-delay-ms D]"""
import argparse, base64, json, os, queue, signal, socket, ssl, struct, sys, threading, time, urllib.parse

RTT_SAMPLES, RTT_GAP_S = 5, 0.2  # as audience-web/phone.js

stop = threading.Event()
lock = threading.Lock()
res = {"phones": 0, "joined": 0, "sent": 0, "acked": 0, "errors": 0, "acks": [], "error_list": [],
       "reveals": {}, "ended": False, "rtt": []}


def recv_exact(sock, n):
    buf = b""
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            raise ConnectionError("closed")
        buf += chunk
    return buf


def send_frame(sock, op, data):
    mask = os.urandom(4)
    n = len(data)
    hdr = bytes([0x80 | op])
    if n < 126:
        hdr += bytes([0x80 | n])
    elif n < 65536:
        hdr += bytes([0x80 | 126]) + struct.pack(">H", n)
    else:
        hdr += bytes([0x80 | 127]) + struct.pack(">Q", n)
    sock.sendall(hdr + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data)))


def recv_message(sock):
    """The next text message (pings answered); None when the server closed."""
    parts = b""
    while True:
        h = recv_exact(sock, 2)
        op, n = h[0] & 15, h[1] & 127
        if n == 126:
            n = struct.unpack(">H", recv_exact(sock, 2))[0]
        elif n == 127:
            n = struct.unpack(">Q", recv_exact(sock, 8))[0]
        data = recv_exact(sock, n) if n else b""
        if op == 8:
            return None
        if op == 9:
            send_frame(sock, 10, data)
            continue
        if op in (1, 0):
            parts += data
            if h[0] & 0x80:
                return parts.decode()


def delay_relay(dst, delay_s):
    """A loopback listener whose every connection is relayed to dst (host, port),
    the bytes towards dst each held delay_s; returns its (host, port)."""
    lsock = socket.socket()
    lsock.bind(("127.0.0.1", 0))
    lsock.listen(64)

    def pipe(a, b, hold):
        q = queue.Queue()

        def later():
            while True:
                due, data = q.get()
                if data is None:
                    break
                time.sleep(max(0, due - time.monotonic()))
                try:
                    b.sendall(data)
                except OSError:
                    break
            try:
                b.shutdown(socket.SHUT_WR)
            except OSError:
                pass
        threading.Thread(target=later, daemon=True).start()
        while True:
            try:
                data = a.recv(65536)
            except OSError:
                data = b""
            q.put((time.monotonic() + hold, data or None))
            if not data:
                return

    def serve():
        while True:
            c, _ = lsock.accept()
            up = socket.create_connection(dst)
            threading.Thread(target=pipe, args=(c, up, delay_s), daemon=True).start()
            threading.Thread(target=pipe, args=(up, c, 0), daemon=True).start()
    threading.Thread(target=serve, daemon=True).start()
    return lsock.getsockname()


def connect(url, src, cafile, via=None):
    u = urllib.parse.urlsplit(url)
    tls = u.scheme in ("wss", "https")
    port = u.port or (443 if tls else 80)
    sock = socket.socket(socket.AF_INET6 if ":" in u.hostname and not via else socket.AF_INET)
    sock.settimeout(10)
    if src:
        sock.bind((src, 0))
    sock.connect(via or (u.hostname, port))
    if tls:
        ctx = ssl.create_default_context(cafile=cafile) if cafile else ssl._create_unverified_context()
        sock = ctx.wrap_socket(sock, server_hostname=u.hostname)
    key = base64.b64encode(os.urandom(16)).decode()
    host = u.hostname if u.port is None else "%s:%d" % (u.hostname, u.port)
    req = ("GET / HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
           "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: fragvote-audience\r\n"
           "Origin: %s://%s\r\n\r\n" % (host, key, "https" if tls else "http", host))
    sock.sendall(req.encode())
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = sock.recv(1)
        if not chunk:
            raise ConnectionError("closed during the handshake")
        head += chunk
    if b" 101 " not in head.split(b"\r\n")[0]:
        raise ConnectionError("no 101: %r" % head.split(b"\r\n")[0])
    return sock


def note_error(i, what):
    with lock:
        res["errors"] += 1
        res["error_list"].append([round(time.time(), 3), i, what])


def measure_rtt(sock, backlog):
    """The phone page's round trip (audience-web/phone.js): RTT_SAMPLES timed
    ping/pong exchanges; other messages meanwhile go to backlog. Its report."""
    samples = []
    while len(samples) < RTT_SAMPLES and not stop.is_set():
        if samples:
            time.sleep(RTT_GAP_S)
        t0 = time.monotonic()
        send_frame(sock, 1, b'{"t":"ping"}')
        while True:
            msg = recv_message(sock)
            if msg is None:
                raise ConnectionError("closed during the round trips")
            if json.loads(msg).get("t") == "pong":
                samples.append((time.monotonic() - t0) * 1000)
                break
            backlog.append(msg)
    s = sorted(samples)
    n = len(s)
    med = s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2
    return {"t": "rtt", "n": n, "median_ms": round(med, 1), "max_ms": round(s[-1], 1)}


def phone(i, args, src):
    try:
        sock = connect(args.url, src, args.cafile, args.via)
    except Exception as e:  # noqa: BLE001 - a test tool reports every failure
        note_error(i, "connect: %s" % e)
        return
    sock.settimeout(1)
    backlog = []
    send_frame(sock, 1, json.dumps({"t": "hello", "v": 1, "room": args.room}).encode())
    voted = set()
    vid = 0
    welcomed = False
    last = None  # the newest state: a phone votes only once welcomed (else: hello_first)
    while not stop.is_set():
        try:
            msg = backlog.pop(0) if backlog else recv_message(sock)
        except socket.timeout:
            continue
        except Exception as e:  # noqa: BLE001
            note_error(i, "recv: %s" % e)
            return
        if msg is None:
            note_error(i, "closed by the hub")
            return
        m = json.loads(msg)
        t = m.get("t")
        if t == "welcome":
            welcomed = True
            with lock:
                res["joined"] += 1
            if args.check and not any(r["phone"] == i for r in res["rtt"]):
                try:
                    report = measure_rtt(sock, backlog)
                    send_frame(sock, 1, json.dumps(report).encode())
                except Exception as e:  # noqa: BLE001
                    note_error(i, "round trip: %s" % e)
                    return
                with lock:
                    res["rtt"].append(dict(report, phone=i, ok=False))
            m = last
            t = "state" if last else t
        elif t == "ack":
            with lock:
                res["acked"] += 1
                res["acks"].append([round(time.time(), 3), i, m.get("q")])
        elif t == "rtt_ok":
            with lock:
                for r in res["rtt"]:
                    if r["phone"] == i:
                        r["ok"] = True
        elif t == "error":
            note_error(i, "%s: %s" % (m.get("code"), m.get("message")))
        if t == "state":
            last = m
            q = m.get("q") or {}
            if q.get("state") == "revealed" and "reveal" in m:
                with lock:
                    res["reveals"][str(q.get("pos"))] = m["reveal"].get("truth")
            key = (q.get("pos"), q.get("round", 1))
            if welcomed and q.get("state") == "voting" and key not in voted and not m.get("ended"):
                voted.add(key)
                vid += 1
                yes = (i + q.get("pos", 0)) % 3 != 0
                send_frame(sock, 1, json.dumps({"t": "vote", "id": vid, "q": q.get("pos"), "yes": yes}).encode())
                with lock:
                    res["sent"] += 1
            if m.get("ended"):
                with lock:
                    res["ended"] = True
                break
    try:
        send_frame(sock, 8, struct.pack(">H", 1000))
        sock.close()
    except OSError:
        pass


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("url")
    ap.add_argument("--phones", type=int, default=8)
    ap.add_argument("--room", default="")
    ap.add_argument("--src", default="")
    ap.add_argument("--max-s", type=float, default=300)
    ap.add_argument("--cafile", default="")
    ap.add_argument("--path-delay-ms", type=float, default=0)
    args = ap.parse_args()
    # The join URL a phone opens: its room, check=1 (measure the round trip), ws(s) to its host.
    u = urllib.parse.urlsplit(args.url)
    query = urllib.parse.parse_qs(u.query)
    args.room = args.room or query.get("room", [""])[0]
    args.check = query.get("check", [""])[0] == "1"
    args.url = urllib.parse.urlunsplit((u.scheme.replace("http", "ws"), u.netloc, "/", "", ""))
    args.via = None
    if args.path_delay_ms > 0:
        args.via = delay_relay((u.hostname, u.port or (443 if u.scheme in ("https", "wss") else 80)),
                               args.path_delay_ms / 1000)
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    srcs = [s for s in args.src.split(",") if s]
    res["phones"] = args.phones
    threads = [threading.Thread(target=phone, args=(i, args, srcs[i % len(srcs)] if srcs else None), daemon=True)
               for i in range(args.phones)]
    for t in threads:
        t.start()
    deadline = time.time() + args.max_s
    while any(t.is_alive() for t in threads) and time.time() < deadline and not stop.is_set():
        time.sleep(0.2)
    stop.set()
    for t in threads:
        t.join(3)
    with lock:
        print(json.dumps(res), flush=True)


if __name__ == "__main__":
    main()
