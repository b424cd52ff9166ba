#!/usr/bin/env bash
# Install the pinned mcp-remote (the stdio bridge desktop assistants use to reach remote MCP servers) into
# tests/mcp-remote/node_modules, from tests/mcp-remote/package-lock.json. It runs on the Node 22 that
# scripts/setup-conformance.sh installs, which this script runs first.
#
# Idempotent and silent on success; only talks to the npm registry (via `npm ci`, no install scripts).
set -euo pipefail

script_dir="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd -P)"
bridge_dir="$(cd -- "${script_dir}/.." && pwd -P)/tests/mcp-remote"

"${script_dir}/setup-conformance.sh"

if command -v flock >/dev/null 2>&1; then
    lock_id="$(printf '%s' "${bridge_dir}" | cksum | cut -d' ' -f1)"
    exec 9>"${TMPDIR:-/tmp}/setup-mcp-remote.${lock_id}.lock"
    flock 9
fi

if [[ ! -e "${bridge_dir}/node_modules/mcp-remote/dist/proxy.js" \
      || "${bridge_dir}/package-lock.json" -nt "${bridge_dir}/node_modules/.package-lock.json" ]]; then
    log="$(mktemp "${TMPDIR:-/tmp}/setup-mcp-remote.XXXXXX.log")"
    if ! (cd "${bridge_dir}" && npm ci --no-audit --no-fund --ignore-scripts) >"${log}" 2>&1; then
        cat "${log}" >&2
        rm -f "${log}"
        echo "setup-mcp-remote: npm ci failed in ${bridge_dir}" >&2
        exit 1
    fi
    rm -f "${log}"
fi
