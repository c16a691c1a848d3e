#!/usr/bin/env python3
"""Phones for the hosted-room tests: N audience websockets (ws:// or wss://,
stdlib only) that join a room, vote once on every question while it is open
(phone i says yes unless (i + position) % 3 == 0), and log every vote, ack
and error with its time. They stop when the quiz has ended, on SIGTERM, or
after --max-s seconds; then one JSON line on stdout:
  {"phones":N,"joined":J,"sent":S,"acked":A,"errors":E,"acks":[[t,phone,q],...],
   "reveals":{"POS":"TRUTH",...},"ended":true}
usage: phones.py URL [--phones N] [--room CODE] [--src ADDR,...] [--max-s S] [--cafile FILE]"""
import argparse, base64, json, os, signal, socket, ssl, struct, sys, threading, time, urllib.parse

stop = threading.Event()
lock = threading.Lock()
res = {"phones": 0, "joined": 0, "sent": 0, "acked": 0, "errors": 0, "acks": [], "error_list": [],
       "reveals": {}, "ended": False}


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


def connect(url, src, cafile):
    u = urllib.parse.urlsplit(url)
    tls = u.scheme in ("wss", "https")
    port = u.port or (443 if tls else 80)
    sock = socket.socket(socket.AF_INET6 if ":" in u.hostname else socket.AF_INET)
    sock.settimeout(10)
    if src:
        sock.bind((src, 0))
    sock.connect((u.hostname, port))
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


def phone(i, args, src):
    try:
        sock = connect(args.url, src, args.cafile)
    except Exception as e:  # noqa: BLE001 - a test tool reports every failure
        note_error(i, "connect: %s" % e)
        return
    sock.settimeout(1)
    send_frame(sock, 1, json.dumps({"t": "hello", "v": 1, "room": args.room}).encode())
    voted = set()
    vid = 0
    welcomed = False
    last = None  # the newest state: a phone votes only once welcomed (else: hello_first)
    while not stop.is_set():
        try:
            msg = recv_message(sock)
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
            m = last
            t = "state" if last else t
        elif t == "ack":
            with lock:
                res["acked"] += 1
                res["acks"].append([round(time.time(), 3), i, m.get("q")])
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
    args = ap.parse_args()
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
