#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for tests (Debian's postgresql package).
#
#   bash scripts/postgres.sh start DIR   # creates and starts a cluster in DIR,
#                                        # prints its URL (postgres://…) on stdout
#   bash scripts/postgres.sh stop DIR    # stops it
#
# PostgreSQL refuses to run as root, so as root the cluster runs as the
# postgres user. It listens on 127.0.0.1 on a free port and on a socket in DIR.
set -euo pipefail
cmd=${1:?usage: postgres.sh start|stop DIR}
dir=${2:?usage: postgres.sh start|stop DIR}
bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
[[ -x $bindir/initdb ]] || { echo "postgres.sh: PostgreSQL is not installed (apt-get install postgresql)" >&2; exit 1; }

as_owner() {
  if [[ $(id -u) == 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi
}

case $cmd in
start)
  mkdir -p "$dir"
  [[ $(id -u) == 0 ]] && chown postgres "$dir"
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  as_owner "$bindir/initdb" -D "$dir/data" -U sitesvc --auth=trust -E UTF8 >"$dir/initdb.log" 2>&1 \
    || { cat "$dir/initdb.log" >&2; exit 1; }
  as_owner "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w \
    -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c fsync=off -c max_connections=200" start >/dev/null \
    || { cat "$dir/server.log" >&2; exit 1; }
  as_owner "$bindir/createdb" -h 127.0.0.1 -p "$port" -U sitesvc sitesvc_test
  echo "postgres://sitesvc@127.0.0.1:$port/sitesvc_test?sslmode=disable"
  ;;
stop)
  [[ -d $dir/data ]] && as_owner "$bindir/pg_ctl" -D "$dir/data" -m fast stop >/dev/null || true
  ;;
*)
  echo "usage: postgres.sh start|stop DIR" >&2; exit 2
  ;;
esac
