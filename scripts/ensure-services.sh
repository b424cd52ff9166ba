#!/usr/bin/env bash
# Make sure what the tests talk to is present and running:
#   - PostgreSQL on 127.0.0.1:5432 (installed from Debian's packages if missing, started if down);
#   - Redis on 127.0.0.1:6379 (the same);
#   - Debian's Chromium at /usr/bin/chromium for the browser tests (Playwright drives it; it cannot
#     download a browser of its own here).
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
updated=""
apt_log="${TMPDIR:-/tmp}/ensure-services-apt.log"
apt_install() {
  if [ -z "$updated" ]; then apt-get update -qq >"$apt_log" 2>&1 || { cat "$apt_log" >&2; exit 1; }; updated=1; fi
  apt-get install -y -qq --no-install-recommends "$@" >>"$apt_log" 2>&1 || { cat "$apt_log" >&2; exit 1; }
}

# --- PostgreSQL ---------------------------------------------------------------------------------
pg_ready() { pg_isready -q -h 127.0.0.1 -p 5432 2>/dev/null; }
if ! pg_ready; then
  if ! command -v pg_ctlcluster >/dev/null 2>&1; then
    echo "ensure-services: installing PostgreSQL from Debian packages" >&2
    apt_install postgresql
  fi
  version="$(ls /etc/postgresql | sort -V | tail -n 1)"
  echo "ensure-services: starting PostgreSQL $version" >&2
  pg_ctlcluster --skip-systemctl-redirect "$version" main start >&2 || true
  for _ in $(seq 1 30); do pg_ready && break; sleep 1; done
  pg_ready || { echo "ensure-services: PostgreSQL did not come up on 127.0.0.1:5432" >&2; exit 1; }
fi
# Tests connect as postgres over TCP without a password (trust on loopback, as on the dev machines).
if ! psql -h 127.0.0.1 -U postgres -d postgres -c 'select 1' >/dev/null 2>&1; then
  version="$(ls /etc/postgresql | sort -V | tail -n 1)"
  hba="/etc/postgresql/$version/main/pg_hba.conf"
  echo "ensure-services: allowing trust auth on loopback in $hba" >&2
  sed -i '1i host all all 127.0.0.1/32 trust\nhost all all ::1/128 trust' "$hba"
  pg_ctlcluster --skip-systemctl-redirect "$version" main reload >&2
fi

# --- Redis --------------------------------------------------------------------------------------
redis_ready() { redis-cli -h 127.0.0.1 -p 6379 ping 2>/dev/null | grep -q PONG; }
if ! redis_ready; then
  if ! command -v redis-server >/dev/null 2>&1; then
    echo "ensure-services: installing Redis from Debian packages" >&2
    apt_install redis-server
  fi
  echo "ensure-services: starting Redis" >&2
  mkdir -p /var/lib/redis /var/log/redis
  redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
    --dir /var/lib/redis --logfile /var/log/redis/ci.log >&2
  for _ in $(seq 1 30); do redis_ready && break; sleep 1; done
  redis_ready || { echo "ensure-services: Redis did not come up on 127.0.0.1:6379" >&2; exit 1; }
fi

# --- Chromium for the browser tests -------------------------------------------------------------
if [ ! -x /usr/bin/chromium ]; then
  echo "ensure-services: installing Chromium from Debian packages (browser tests)" >&2
  apt_install chromium
fi
