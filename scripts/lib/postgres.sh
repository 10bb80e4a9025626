# shellcheck shell=bash
#
# postgres.sh: make sure a PostgreSQL server answers at DATABASE_URL. Source
# it; it defines functions only and is safe under `set -euo pipefail`.
#
#   . scripts/lib/postgres.sh
#   pg_ensure "$DATABASE_URL"   # starts or installs a local server if none answers
#   trap pg_stop_if_started EXIT
#
# When the URL points at this machine (127.0.0.1, localhost, ::1) and nothing
# answers, pg_ensure starts the installed Debian cluster; when PostgreSQL is
# not installed it installs it with apt (as root, or with sudo) and allows
# password-less (trust) connections from loopback, which is what the default
# DATABASE_URL uses. A remote URL that does not answer is an error.

PG_STARTED_CLUSTER=""

# pg_host_port prints "host port" parsed from a postgres:// URL.
pg_host_port() {
	local url=$1 rest hostport host port
	rest=${url#*://}
	rest=${rest%%/*}
	rest=${rest%%\?*}
	hostport=${rest##*@}
	host=${hostport%:*}
	port=${hostport##*:}
	[[ "$hostport" == *:* ]] || port=5432
	[[ -n "$host" ]] || host=127.0.0.1
	printf '%s %s\n' "$host" "$port"
}

# pg_answers reports whether something accepts TCP connections on host:port.
pg_answers() {
	local host=$1 port=$2
	if command -v pg_isready >/dev/null 2>&1; then
		pg_isready -q -h "$host" -p "$port" -t 2 >/dev/null 2>&1
		return
	fi
	(exec 3<>"/dev/tcp/$host/$port") 2>/dev/null
}

pg_sudo() {
	if [[ $(id -u) -eq 0 ]]; then
		"$@"
	elif command -v sudo >/dev/null 2>&1; then
		sudo "$@"
	else
		echo "postgres: need root or sudo to run: $*" >&2
		return 1
	fi
}

# pg_wait waits up to 30 s for host:port to answer.
pg_wait() {
	local i
	for i in $(seq 1 60); do
		pg_answers "$1" "$2" && return 0
		sleep 0.5
	done
	return 1
}

# pg_ensure makes sure a server answers for the URL in $1.
pg_ensure() {
	local url=$1 host port hp cluster
	read -r host port < <(pg_host_port "$url")
	if pg_answers "$host" "$port"; then
		return 0
	fi
	case "$host" in
	127.0.0.1 | localhost | ::1 | "[::1]") ;;
	*)
		echo "postgres: nothing answers at $host:$port and it is not this machine; start it or set DATABASE_URL" >&2
		return 1
		;;
	esac
	if ! command -v pg_lsclusters >/dev/null 2>&1; then
		echo "postgres: not installed; installing it with apt (Debian package postgresql)" >&2
		pg_sudo apt-get update -qq >&2
		DEBIAN_FRONTEND=noninteractive pg_sudo apt-get install -y -qq postgresql >&2
		pg_trust_loopback
	fi
	# Start the first cluster listening on the wanted port, or the first one.
	cluster=$(pg_lsclusters -h 2>/dev/null | awk -v p="$port" '$3 == p {print $1" "$2; exit}')
	[[ -n "$cluster" ]] || cluster=$(pg_lsclusters -h 2>/dev/null | awk '{print $1" "$2; exit}')
	if [[ -z "$cluster" ]]; then
		echo "postgres: no cluster found; creating one" >&2
		local ver
		ver=$(ls /usr/lib/postgresql | sort -n | tail -1)
		pg_sudo pg_createcluster "$ver" main --port "$port" >&2
		pg_trust_loopback
		cluster="$ver main"
	fi
	echo "postgres: starting cluster $cluster" >&2
	# shellcheck disable=SC2086
	pg_sudo pg_ctlcluster --skip-systemctl-redirect $cluster start >&2 || true
	if ! pg_wait "$host" "$port"; then
		echo "postgres: the server did not come up on $host:$port" >&2
		return 1
	fi
	PG_STARTED_CLUSTER=$cluster
}

# pg_trust_loopback lets local TCP connections in without a password, for
# development and tests on this machine only.
pg_trust_loopback() {
	local f
	for f in /etc/postgresql/*/main/pg_hba.conf; do
		[[ -f "$f" ]] || continue
		if ! grep -q '# compliance: trust loopback' "$f"; then
			pg_sudo sed -i '1i # compliance: trust loopback (development and tests only)\nhost all all 127.0.0.1/32 trust\nhost all all ::1/128 trust' "$f"
		fi
	done
}

# pg_stop_if_started stops the cluster pg_ensure started, if any.
pg_stop_if_started() {
	if [[ -n "$PG_STARTED_CLUSTER" ]]; then
		echo "postgres: stopping cluster $PG_STARTED_CLUSTER" >&2
		# shellcheck disable=SC2086
		pg_sudo pg_ctlcluster --skip-systemctl-redirect $PG_STARTED_CLUSTER stop >&2 || true
		PG_STARTED_CLUSTER=""
	fi
}
