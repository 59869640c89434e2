#!/usr/bin/env bash
# Runs a command against a throwaway PostgreSQL server:
#
#   scripts/with-postgres.sh <command> [args…]
#
# Finds the server binaries (Debian's /usr/lib/postgresql/<version>/bin, or initdb/pg_ctl on the
# PATH; `apt-get install -y postgresql` provides them), makes a new cluster in a temporary
# directory (as the `postgres` user when run as root: the server refuses to run as root), starts
# it on a free local port (127.0.0.1 only, trust authentication), creates database `platform`,
# runs the command with DATABASE_URL=postgres://platform@127.0.0.1:<port>/platform, then stops
# the server and removes the directory, however the command ends. The command's exit code is the script's.
#
# The cluster trades durability for speed (fsync off): it lives only as long as the command.
set -euo pipefail

bin=""
for dir in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
  if [ -x "$dir/initdb" ] && [ -x "$dir/pg_ctl" ]; then bin="$dir"; break; fi
done
if [ -z "$bin" ] && command -v initdb >/dev/null 2>&1 && command -v pg_ctl >/dev/null 2>&1; then
  bin="$(dirname "$(command -v initdb)")"
fi
if [ -z "$bin" ]; then
  echo "with-postgres: no PostgreSQL server binaries found; install them (Debian: apt-get install -y postgresql)" >&2
  exit 127
fi
if [ "$#" -eq 0 ]; then
  echo "usage: scripts/with-postgres.sh <command> [args…]" >&2
  exit 2
fi

tmp="$(mktemp -d "${TMPDIR:-/tmp}/platform-pg.XXXXXX")"
as_server=()
if [ "$(id -u)" = 0 ]; then
  chown postgres "$tmp"
  as_server=(runuser -u postgres --)
fi
run_server() { ${as_server[@]+"${as_server[@]}"} "$@"; }

port="$(node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"

started=""
cleanup() {
  if [ -n "$started" ]; then run_server "$bin/pg_ctl" -D "$tmp/data" -m immediate -w stop >/dev/null 2>&1 || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

run_server "$bin/initdb" -D "$tmp/data" -U platform --auth=trust -E UTF8 --no-sync >"$tmp/initdb.log" 2>&1 \
  || { cat "$tmp/initdb.log" >&2; exit 1; }
started=1
run_server "$bin/pg_ctl" -D "$tmp/data" -l "$tmp/server.log" -w -t 60 \
  -o "-h 127.0.0.1 -p $port -k $tmp -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300" \
  start >/dev/null || { cat "$tmp/server.log" >&2; exit 1; }
"$bin/createdb" -h 127.0.0.1 -p "$port" -U platform platform

export DATABASE_URL="postgres://platform@127.0.0.1:$port/platform"
echo "with-postgres: PostgreSQL $("$bin/pg_ctl" --version | awk '{print $3}') on 127.0.0.1:$port" >&2
status=0
"$@" || status=$?
exit "$status"
