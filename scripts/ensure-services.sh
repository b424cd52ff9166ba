#!/usr/bin/env bash
# Make sure the PostgreSQL server the store tests use is running on 127.0.0.1:5432.
# Installs it from Debian's packages when it is missing entirely; starts it when it is down.
set -euo pipefail
ready() { pg_isready -q -h 127.0.0.1 -p 5432 2>/dev/null; }
ready && exit 0
if ! command -v pg_ctlcluster >/dev/null 2>&1; then
  echo "ensure-services: installing PostgreSQL from Debian packages" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  apt-get install -y -qq postgresql >&2
fi
version="$(ls /etc/postgresql | sort -V | tail -n 1)"
echo "ensure-services: starting PostgreSQL $version" >&2
pg_ctlcluster --skip-systemctl-redirect "$version" main start >&2 || true
for _ in $(seq 1 30); do ready && break; sleep 1; done
ready || { echo "ensure-services: PostgreSQL did not come up on 127.0.0.1:5432" >&2; exit 1; }
# Tests connect as postgres over TCP without a password (trust on loopback, as on the dev machines).
if ! psql -h 127.0.0.1 -U postgres -d postgres -c 'select 1' >/dev/null 2>&1; then
  hba="/etc/postgresql/$version/main/pg_hba.conf"
  echo "ensure-services: allowing trust auth on loopback in $hba" >&2
  sed -i '1i host all all 127.0.0.1/32 trust\nhost all all ::1/128 trust' "$hba"
  pg_ctlcluster --skip-systemctl-redirect "$version" main reload >&2
fi
