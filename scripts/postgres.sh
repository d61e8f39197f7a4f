#!/bin/sh
# Starts a throwaway PostgreSQL cluster for the Hours tests (it installs
# nothing: it uses the Debian postgresql package's binaries) and prints its
# URL on stdout:
#
#   dir=$(mktemp -d)
#   export SITESVC_TEST_POSTGRES_URL=$(scripts/postgres.sh start "$dir")
#   go test ./impl/hours/...              # the suite on SQLite and PostgreSQL
#   scripts/postgres.sh stop "$dir"       # stops the cluster, removes $dir
#
# Without DIR, start makes a temporary directory and names it on stderr.
# The cluster listens on 127.0.0.1 on a free port (and on a unix socket in
# DIR) and trusts local connections. Run as root, the server runs as the
# postgres user.
set -eu

PGBIN=${PGBIN:-}
if [ -z "$PGBIN" ]; then
	for d in /usr/lib/postgresql/*/bin; do
		[ -x "$d/initdb" ] && PGBIN=$d
	done
fi
if [ -z "$PGBIN" ] || [ ! -x "$PGBIN/initdb" ]; then
	echo "postgres.sh: no PostgreSQL server binaries (install the Debian package postgresql)" >&2
	exit 1
fi

as_owner() {
	if [ "$(id -u)" = 0 ]; then
		# From a directory the postgres user can enter (the checkout may not be).
		(cd / && runuser -u postgres -- "$@")
	else
		"$@"
	fi
}

free_port() {
	# A port nobody listens on, among the unprivileged ones.
	while :; do
		port=$(( $(od -An -N2 -tu2 /dev/urandom | tr -d ' ') % 20000 + 30000 ))
		if ! (ss -ltn 2>/dev/null || netstat -ltn 2>/dev/null) | grep -q "[:.]$port "; then
			echo "$port"
			return
		fi
	done
}

start() {
	dir=${1:-}
	if [ -z "$dir" ]; then
		dir=$(mktemp -d /tmp/sitesvc-pg.XXXXXX)
	fi
	mkdir -p "$dir"
	if [ -e "$dir/data" ]; then
		echo "postgres.sh: $dir/data exists; give an empty directory" >&2
		exit 1
	fi
	chmod 755 "$dir"
	[ "$(id -u)" = 0 ] && chown postgres "$dir"
	as_owner "$PGBIN/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 --no-locale >"$dir/initdb.log" 2>&1 || {
		cat "$dir/initdb.log" >&2
		exit 1
	}
	for attempt in 1 2 3 4 5; do
		port=$(free_port)
		if as_owner "$PGBIN/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 30 \
			-o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200" \
			start >/dev/null 2>&1; then
			echo "postgres.sh: PostgreSQL in $dir on 127.0.0.1:$port (stop with: $0 stop $dir)" >&2
			echo "postgres://postgres@127.0.0.1:$port/postgres?sslmode=disable"
			return 0
		fi
	done
	cat "$dir/server.log" >&2
	echo "postgres.sh: the server did not start" >&2
	exit 1
}

stop() {
	dir=${1:-}
	if [ -z "$dir" ] || [ ! -d "$dir/data" ]; then
		echo "postgres.sh: stop: $dir holds no cluster (give the directory given to start)" >&2
		exit 1
	fi
	as_owner "$PGBIN/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null
	rm -rf "$dir"
}

case "${1:-start}" in
start) shift || true; start "$@" ;;
stop) shift; stop "$@" ;;
*)
	echo "usage: $0 [start|stop [DIR]]" >&2
	exit 2
	;;
esac
