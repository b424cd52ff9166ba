#!/usr/bin/env bash
# Set up the Python environment from the lock file: a pinned uv in .cache/, then `uv sync --locked`,
# with bytecode compiled ahead.
# Idempotent and quiet when everything is already in place. Prints the path of uv on stdout.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
uv_version="0.13.9"
tools="$root/.cache/uv-$uv_version"
uv="$tools/bin/uv"
if [ ! -x "$uv" ]; then
  echo "bootstrap: installing uv $uv_version into .cache/" >&2
  python3 -m venv "$tools" >&2
  "$tools/bin/python" -m pip install --quiet --disable-pip-version-check "uv==$uv_version" >&2
fi
export UV_PYTHON_DOWNLOADS=never
# Bytecode compiled ahead, for the dependencies and for our own package: where PYTHONDONTWRITEBYTECODE is
# set (as on our CI machines), Python would otherwise compile every module again in every process, which
# costs each server the tests start and each CLI command about two seconds of CPU. Python reads these
# files whatever that setting says, and compiles a changed module afresh (they are checked by mtime).
# Say what is happening when there is work to do (the first run takes about a minute); stay quiet otherwise.
stamp="$root/.venv/.bootstrap-done"
if [ ! -f "$stamp" ] || [ "$root/uv.lock" -nt "$stamp" ] || [ "$root/pyproject.toml" -nt "$stamp" ]; then
  echo "bootstrap: installing the locked Python packages into .venv and compiling them (the first time: about a minute)" >&2
  (cd "$root" && "$uv" sync --locked --quiet --compile-bytecode >&2)
  echo "bootstrap: compiling the service's own modules" >&2
  "$root/.venv/bin/python" -m compileall -q "$root/src" >&2
  touch "$stamp"
  echo "bootstrap: ready" >&2
else
  (cd "$root" && "$uv" sync --locked --quiet --compile-bytecode >&2)
  "$root/.venv/bin/python" -m compileall -q "$root/src" >&2
fi
echo "$uv"
