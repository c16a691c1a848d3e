#!/usr/bin/env python3
"""Presenter auths over a plain websocket, each with an optional
X-Forwarded-For header, from a chosen 127.0.0.x source address (TLS with
WS_AUTH_TLS=1, any certificate: a test's self-signed one), one after
another in this one process, so that a throttle's window (1 s per address)
is not spent starting Python on a loaded machine. Prints each answer on a
line: auth_ok, or the error's code (bad_secret, throttled), or closed.
Used by test_serve_trust_proxy.sh and test_nginx_proxy.sh (stdlib only: no
websocket module).
usage: ws_auth.py HOST PORT SRC SECRET [XFF] [+ SRC SECRET [XFF]]..."""
import base64, json, os, socket, ssl, struct, sys

def frames(sock):
    buf = b""
    while True:
        while len(buf) < 2 or len(buf) < hdr_len(buf) + payload_len(buf):
            chunk = sock.recv(65536)
            if not chunk:
                return
            buf += chunk
        h, n = hdr_len(buf), payload_len(buf)
        op, data, buf = buf[0] & 15, buf[h:h + n], buf[h + n:]
        if op == 8:
            return
        if op == 1:
            yield data

def hdr_len(b):
    n = b[1] & 127
    return 2 if n < 126 else 4 if n == 126 else 10

def payload_len(b):
    n = b[1] & 127
    if n == 126:
        return struct.unpack(">H", b[2:4])[0] if len(b) >= 4 else 1 << 30
    if n == 127:
        return struct.unpack(">Q", b[2:10])[0] if len(b) >= 10 else 1 << 30
    return n

def auth(host, port, src, secret, xff):
    s = socket.socket()
    s.settimeout(5)
    s.bind((src, 0))
    s.connect((host, port))
    if os.environ.get("WS_AUTH_TLS") == "1":
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
        s = ctx.wrap_socket(s)
    key = base64.b64encode(os.urandom(16)).decode()
    req = (f"GET / HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
           f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
           f"Sec-WebSocket-Protocol: fragvote-presenter\r\n")
    if xff is not None:
        req += f"X-Forwarded-For: {xff}\r\n"
    s.sendall((req + "\r\n").encode())
    resp = b""
    while b"\r\n\r\n" not in resp:
        chunk = s.recv(4096)
        if not chunk:
            return "closed"
        resp += chunk
    if not resp.startswith(b"HTTP/1.1 101"):
        return "refused"
    rest = resp.split(b"\r\n\r\n", 1)[1]
    msg = json.dumps({"t": "auth", "secret": secret}).encode()
    mask = os.urandom(4)
    s.sendall(bytes([0x81, 0x80 | len(msg)]) + mask + bytes(c ^ mask[i % 4] for i, c in enumerate(msg)))
    class Pre:  # the bytes after the handshake belong to the first frames
        def __init__(self, s, pre): self.s, self.pre = s, pre
        def recv(self, n):
            if self.pre:
                p, self.pre = self.pre, b""
                return p
            return self.s.recv(n)
    try:
        for data in frames(Pre(s, rest)):
            m = json.loads(data)
            if m.get("t") == "auth_ok":
                return "auth_ok"
            if m.get("t") == "error":
                return m.get("code", "?")
    except socket.timeout:
        return "timeout"
    return "closed"

def main():
    host, port, rest = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    while rest:
        n = rest.index("+") if "+" in rest else len(rest)
        a, rest = rest[:n], rest[n + 1:]
        print(auth(host, port, a[0], a[1], a[2] if len(a) > 2 else None), flush=True)

main()
