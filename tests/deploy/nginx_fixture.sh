# Sourced by tests/deploy/test_nginx_proxy.sh and tests/load/bench_proxy.sh (not
# a test itself): a private nginx made from the shipped deploy/nginx/fragvote.conf
# with only its site values substituted, on its own prefix, pid and temp dirs,
# never the system service. Loopback only.

# free_ports N: N distinct loopback TCP ports free right now (all held open
# together while picked, so no two are the same), one per line.
free_ports() {
  python3 -c 'import socket,sys
ss=[socket.socket() for _ in range(int(sys.argv[1]))]
for s in ss: s.bind(("127.0.0.1",0))
print("\n".join(str(s.getsockname()[1]) for s in ss))' "$1"
}

# listen_port PID: the TCP port process PID listens on (serve --port 0 behind
# a --public-url names no port of its own); empty until it listens.
listen_port() {
  ss -Hltnp 2>/dev/null | grep "pid=$1," | awk '{n=split($4,a,":"); print a[n]; exit}'
}
# fv_listen_port FILE PID: once serve printed its "Join:" line in FILE, the
# port PID listens on (10 s at most): prints it, or fails.
fv_listen_port() {
  local p
  for _ in $(seq 1 100); do
    grep -q '^Join: ' "$1" && p=$(listen_port "$2") && [ -n "$p" ] && { echo "$p"; return 0; }
    sleep 0.1
  done
  return 1
}

# nginx_site SRC_CONF OUT HTTP_PORT TLS_PORT CERT KEY UPSTREAM_PORT: the shipped
# site file with its ports, certificate and upstream made local. Each value
# must be found exactly once, so a changed shipped file cannot slip past.
nginx_site() {
  local conf=$1 out=$2
  cp "$conf" "$out"
  _nginx_sub() {
    local n; n=$(grep -cF -- "$1" "$out")
    [ "$n" = 1 ] || { echo "deploy/nginx/fragvote.conf: '$1' found $n times, not once" >&2; return 1; }
    FROM=$1 TO=$2 python3 -c 'import os,sys; p=sys.argv[1]; s=open(p).read(); open(p,"w").write(s.replace(os.environ["FROM"], os.environ["TO"]))' "$out"
  }
  _nginx_sub "listen 80;" "listen 127.0.0.1:$3;" &&
  _nginx_sub "listen [::]:80;" "" &&
  _nginx_sub "listen 443 ssl;" "listen 127.0.0.1:$4 ssl;" &&
  _nginx_sub "listen [::]:443 ssl;" "" &&
  _nginx_sub "/etc/letsencrypt/live/vote.example.org/fullchain.pem" "$5" &&
  _nginx_sub "/etc/letsencrypt/live/vote.example.org/privkey.pem" "$6" &&
  _nginx_sub "server 127.0.0.1:8080;" "server 127.0.0.1:$7;"
}

# nginx_main DIR WORKER_CONNECTIONS SITE_FILE...: DIR/nginx.conf including the
# site files, with NGINX_WORKERS worker processes (default 1; Debian's file
# says auto). It stands for Debian's /etc/nginx/nginx.conf, whose events
# block needs two connections per phone (docs/DEPLOY.md).
nginx_main() {
  local dir=$1 wc=$2; shift 2
  mkdir -p "$dir/logs" "$dir/tmp"
  {
    echo "worker_processes ${NGINX_WORKERS:-1};"
    echo "pid $dir/nginx.pid;"
    echo "error_log $dir/logs/error.log warn;"
    echo "daemon off;"
    local files=$((wc * 2 + 64)) hard; hard=$(ulimit -Hn)
    [ "$hard" != unlimited ] && [ "$files" -gt "$hard" ] && files=$hard
    echo "worker_rlimit_nofile $files;"
    echo "events { worker_connections $wc; }"
    echo "http {"
    echo "    access_log off;"
    for t in client_body proxy fastcgi uwsgi scgi; do echo "    ${t}_temp_path $dir/tmp/$t;"; done
    for f in "$@"; do echo "    include $f;"; done
    echo "}"
  } >"$dir/nginx.conf"
}

# nginx_start NGINX DIR TLS_PORT: starts it in the background (sets nginx_pid)
# and waits until the TLS port answers. Returns 1 when it does not.
nginx_start() {
  "$1" -p "$2" -c "$2/nginx.conf" -e "$2/logs/error.log" 2>>"$2/logs/error.log" &
  nginx_pid=$!
  for _ in $(seq 1 100); do
    curl -sk --max-time 1 -o /dev/null "https://127.0.0.1:$3/" && return 0
    kill -0 "$nginx_pid" 2>/dev/null || break
    sleep 0.1
  done
  return 1
}
