# shellcheck shell=bash
#
# graphdb.sh: build and run NornicDB, the Neo4j-compatible Bolt server used
# for development and CI (DESIGN.md section 4). Source it; it defines
# functions only and is safe under `set -euo pipefail`.
#
#   . scripts/lib/graphdb.sh
#   graphdb_build                      # once; cached across runs (~2 min cold)
#   graphdb_start "$tmp/graph/data"    # exports NEO4J_URI, GRAPHDB_PID, GRAPHDB_LOG
#   trap graphdb_stop EXIT
#   NEO4J_URI=$NEO4J_URI go test ./...
#
# Call graphdb_start in the shell that will call graphdb_stop (not inside
# $(...)): the server is that shell's background job. For the same reason a
# bare `wait` in that shell waits for the server; wait for specific pids.
# The parent of DATA_DIR receives nornicdb.log and nornicdb.yaml, so give
# each server a directory of its own.
#
# Environment:
#   COMPLIANCE_CACHE      cache root (default ${XDG_CACHE_HOME:-$HOME/.cache}/compliance)
#   GRAPHDB_START_TIMEOUT seconds to wait for the Bolt port (default 30)

GRAPHDB_VERSION=v1.2.0
GRAPHDB_MODULE_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/../graphdb" && pwd)"

# graphdb_bin prints the path of the cached nornicdb binary.
graphdb_bin() {
	local cache="${COMPLIANCE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/compliance}"
	printf '%s\n' "$cache/nornicdb-$GRAPHDB_VERSION/nornicdb"
}

# graphdb_build builds nornicdb into the cache unless it is already there.
# The binary is written under a temporary name and renamed, so an
# interrupted build never leaves a broken binary in the cache.
graphdb_build() {
	local bin dir tmp start
	bin="$(graphdb_bin)"
	if [[ -x "$bin" ]]; then
		return 0
	fi
	dir="$(dirname "$bin")"
	mkdir -p "$dir"
	# Leftovers of interrupted builds.
	find "$dir" -maxdepth 1 -name 'nornicdb.tmp.*' -mmin +60 -delete 2>/dev/null || true
	tmp="$(mktemp "$dir/nornicdb.tmp.XXXXXX")"
	echo "graphdb: building nornicdb $GRAPHDB_VERSION into $bin (first build takes a few minutes)" >&2
	start=$SECONDS
	if ! (cd "$GRAPHDB_MODULE_DIR" && GOWORK=off go build -tags 'noui nolocalllm' -o "$tmp" \
		github.com/orneryd/nornicdb/cmd/nornicdb); then
		rm -f "$tmp"
		echo "graphdb: building nornicdb failed" >&2
		return 1
	fi
	chmod 0755 "$tmp"
	mv -f "$tmp" "$bin"
	echo "graphdb: built nornicdb in $((SECONDS - start))s" >&2
}

# graphdb_port_free reports whether nothing accepts connections on
# 127.0.0.1:$1.
graphdb_port_free() {
	! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# graphdb_free_ports prints $1 distinct free loopback ports, one a line.
# They lie in 20000-32767, below Linux's ephemeral range, so that no
# outgoing connection holds one and a probe cannot connect to itself.
graphdb_free_ports() {
	local want=$1 p tries=0 found=()
	p=$((20000 + RANDOM % 12000))
	while ((${#found[@]} < want)); do
		if ((tries++ > 500)); then
			echo "graphdb: no free loopback port found" >&2
			return 1
		fi
		p=$((p + 1 + RANDOM % 7))
		if ((p > 32767)); then
			p=20000
		fi
		if graphdb_port_free "$p"; then
			found+=("$p")
		fi
	done
	printf '%s\n' "${found[@]}"
}

# graphdb_start starts nornicdb with its data in DATA_DIR, listening on free
# loopback ports without authentication, and waits until the Bolt port
# accepts connections (about 0.15 s on an empty DATA_DIR). It exports
# NEO4J_URI, GRAPHDB_PID and GRAPHDB_LOG (the server's output, next to
# DATA_DIR). On failure it prints the tail of the log and returns 1.
graphdb_start() {
	if (($# != 1)); then
		echo "usage: graphdb_start DATA_DIR" >&2
		return 2
	fi
	local data_dir=$1 bin run_dir ports bolt http tele timeout deadline
	if [[ -n "${GRAPHDB_PID:-}" ]] && kill -0 "$GRAPHDB_PID" 2>/dev/null; then
		echo "graphdb: a server (pid $GRAPHDB_PID) is already running; call graphdb_stop first" >&2
		return 1
	fi
	bin="$(graphdb_bin)"
	if [[ ! -x "$bin" ]]; then
		echo "graphdb: $bin is missing; run graphdb_build first" >&2
		return 1
	fi
	mkdir -p "$data_dir"
	data_dir="$(cd "$data_dir" && pwd)"
	run_dir="$(dirname "$data_dir")"
	GRAPHDB_LOG="$run_dir/nornicdb.log"
	export GRAPHDB_LOG

	# An explicit, empty config file keeps a developer's ~/.nornicdb or
	# ./config.yaml out of the picture; flags and env set everything here.
	printf '# written by scripts/lib/graphdb.sh; settings are passed as flags\n' >"$run_dir/nornicdb.yaml"

	mapfile -t ports < <(graphdb_free_ports 3)
	if ((${#ports[@]} != 3)); then
		return 1
	fi
	bolt=${ports[0]} http=${ports[1]} tele=${ports[2]}

	# From run_dir, since nornicdb resolves ./plugins and ./models against
	# its working directory; exec keeps $! the server's pid.
	# NORNICDB_ASYNC_WRITES_ENABLED=false: the default write-behind cache is
	# eventually consistent, lets concurrent MERGEs commit duplicates past a
	# uniqueness constraint and, under concurrent writers, deadlocks the
	# server (v1.2.0).
	(cd "$run_dir" && NORNICDB_TELEMETRY_LISTEN="127.0.0.1:$tele" NORNICDB_ASYNC_WRITES_ENABLED="${NORNICDB_ASYNC_WRITES_ENABLED:-false}" exec "$bin" serve \
		--config "$run_dir/nornicdb.yaml" \
		--address 127.0.0.1 --bolt-port "$bolt" --http-port "$http" \
		--no-auth --headless --data-dir "$data_dir" \
		>"$GRAPHDB_LOG" 2>&1 </dev/null) &
	GRAPHDB_PID=$!
	export GRAPHDB_PID

	timeout=${GRAPHDB_START_TIMEOUT:-30}
	deadline=$((SECONDS + timeout))
	# Ready when the log says the Bolt listener is up and the port answers.
	while ! grep -q '"bolt server listening"' "$GRAPHDB_LOG" 2>/dev/null || graphdb_port_free "$bolt"; do
		if ! kill -0 "$GRAPHDB_PID" 2>/dev/null; then
			echo "graphdb: nornicdb exited during startup; last lines of $GRAPHDB_LOG:" >&2
			tail -n 30 "$GRAPHDB_LOG" >&2 || true
			unset GRAPHDB_PID
			return 1
		fi
		if ((SECONDS >= deadline)); then
			echo "graphdb: nornicdb did not accept Bolt connections on 127.0.0.1:$bolt within ${timeout}s; last lines of $GRAPHDB_LOG:" >&2
			tail -n 30 "$GRAPHDB_LOG" >&2 || true
			graphdb_stop
			return 1
		fi
		sleep 0.1
	done
	NEO4J_URI="bolt://127.0.0.1:$bolt"
	export NEO4J_URI
	echo "graphdb: nornicdb (pid $GRAPHDB_PID) listening on $NEO4J_URI, log $GRAPHDB_LOG" >&2
}

# graphdb_stop stops the server graphdb_start started, if any, and waits
# for it to exit (SIGKILL after 10 s).
graphdb_stop() {
	local pid=${GRAPHDB_PID:-} i
	[[ -n "$pid" ]] || return 0
	unset GRAPHDB_PID
	if kill -0 "$pid" 2>/dev/null; then
		kill -TERM "$pid" 2>/dev/null || true
		for ((i = 0; i < 100; i++)); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		if kill -0 "$pid" 2>/dev/null; then
			echo "graphdb: nornicdb (pid $pid) ignored SIGTERM; killing it" >&2
			kill -KILL "$pid" 2>/dev/null || true
		fi
	fi
	wait "$pid" 2>/dev/null || true
}
