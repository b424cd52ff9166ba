#!/usr/bin/env bash
# Install the pinned MCP Inspector (@modelcontextprotocol/inspector, whose CLI mode the tests drive) into
# tests/inspector/node_modules from tests/inspector/package-lock.json. It runs on the Node 22 that
# scripts/setup-conformance.sh installs (the Inspector asks for Node 22.19 or later). Idempotent and silent on
# success; only `npm ci` talks to the npm registry, the test itself makes no outside request.
set -euo pipefail

script_dir="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd -P)"
dir="$(cd -- "${script_dir}/../tests/inspector" && pwd -P)"
die() { echo "setup-inspector: $*" >&2; exit 1; }
command -v npm >/dev/null 2>&1 || die "npm not found on PATH"
"${script_dir}/setup-conformance.sh"

if command -v flock >/dev/null 2>&1; then
    lock_id="$(printf '%s' "${dir}" | cksum | cut -d' ' -f1)"
    exec 9>"${TMPDIR:-/tmp}/setup-inspector.${lock_id}.lock"
    flock 9
fi

nm="${dir}/node_modules"
if [[ ! -d "${nm}" || "${dir}/package-lock.json" -nt "${nm}/.package-lock.json" ]]; then
    log="$(mktemp "${TMPDIR:-/tmp}/setup-inspector.XXXXXX.log")"
    (cd "${dir}" && npm ci --no-audit --no-fund --ignore-scripts) >"${log}" 2>&1 || { cat "${log}" >&2; die "npm ci failed"; }
    rm -f "${log}"
fi
[[ -e "${nm}/.bin/mcp-inspector" ]] || die "mcp-inspector missing after install"
