#!/usr/bin/env bash
# Install the pinned MCP Apps host side (@modelcontextprotocol/ext-apps and its peers) into
# tests/apps-host/node_modules from tests/apps-host/package-lock.json, and bundle the test host page's
# script into tests/apps-host/dist/host.js with esbuild. Idempotent and silent on success; only `npm ci`
# talks to the npm registry, the test itself makes no outside request.
set -euo pipefail

script_dir="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd -P)"
host_dir="$(cd -- "${script_dir}/../tests/apps-host" && pwd -P)"
die() { echo "setup-apps-host: $*" >&2; exit 1; }
command -v npm >/dev/null 2>&1 || die "npm not found on PATH (Node 20 or later)"

if command -v flock >/dev/null 2>&1; then
    lock_id="$(printf '%s' "${host_dir}" | cksum | cut -d' ' -f1)"
    exec 9>"${TMPDIR:-/tmp}/setup-apps-host.${lock_id}.lock"
    flock 9
fi

nm="${host_dir}/node_modules"
if [[ ! -d "${nm}" || "${host_dir}/package-lock.json" -nt "${nm}/.package-lock.json" ]]; then
    log="$(mktemp "${TMPDIR:-/tmp}/setup-apps-host.XXXXXX.log")"
    (cd "${host_dir}" && npm ci --no-audit --no-fund --ignore-scripts) >"${log}" 2>&1 || { cat "${log}" >&2; die "npm ci failed"; }
    rm -f "${log}"
fi
bundle="${host_dir}/dist/host.js"
if [[ ! -f "${bundle}" || "${host_dir}/host.mjs" -nt "${bundle}" || "${host_dir}/package-lock.json" -nt "${bundle}" ]]; then
    (cd "${host_dir}" && node build.mjs) || die "bundling host.mjs failed"
fi
