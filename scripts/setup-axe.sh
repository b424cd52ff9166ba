#!/usr/bin/env bash
# Install the pinned axe-core engine (npm package axe-core) into tests/accessibility/node_modules,
# from tests/accessibility/package-lock.json. The page tests inject its axe.min.js into every page.
#
# Idempotent and silent on success; safe to run from any working directory and from parallel
# test workers. Only talks to the npm registry (via `npm ci`); the lockfile has no install scripts.
set -euo pipefail

script_dir="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd -P)"
repo_root="$(cd -- "${script_dir}/.." && pwd -P)"
axe_dir="${repo_root}/tests/accessibility"
engine="${axe_dir}/node_modules/axe-core/axe.min.js"

die() { echo "setup-axe: $*" >&2; exit 1; }

[[ -f "${axe_dir}/package.json" && -f "${axe_dir}/package-lock.json" ]] \
    || die "missing ${axe_dir}/package.json or package-lock.json"
command -v npm >/dev/null 2>&1 || die "npm not found on PATH (any npm >= 7 works)"

# Serialise concurrent runs (parallel test workers) so two `npm ci` never race.
if command -v flock >/dev/null 2>&1; then
    lock_id="$(printf '%s' "${axe_dir}" | cksum | cut -d' ' -f1)"
    exec 9>"${TMPDIR:-/tmp}/setup-axe.${lock_id}.lock"
    flock 9
fi

# npm writes node_modules/.package-lock.json on every successful install; `-nt` is also true when it is missing.
if [[ ! -f "${engine}" || "${axe_dir}/package-lock.json" -nt "${axe_dir}/node_modules/.package-lock.json" ]]; then
    log="$(mktemp "${TMPDIR:-/tmp}/setup-axe.XXXXXX.log")"
    if ! (cd "${axe_dir}" && npm ci --no-audit --no-fund --ignore-scripts) >"${log}" 2>&1; then
        cat "${log}" >&2
        rm -f "${log}"
        die "npm ci failed in ${axe_dir}"
    fi
    rm -f "${log}"
fi

[[ -f "${engine}" ]] || die "${engine} missing after install"
