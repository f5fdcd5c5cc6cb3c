#!/usr/bin/env bash
# Creates (once) the Python virtual environment the interoperability tests use, outside git:
#   ${CAIRN_CACHE:-$HOME/.cache/cairn}/venv
# and installs test/interop/requirements.txt into it with pip. A stamp file holds a hash of the
# requirements and the interpreter version, so a second run with nothing changed returns at
# once. Prints the venv's directory on stdout (progress goes to stderr):
#
#   venv=$(bash scripts/python-env.sh) && "$venv/bin/pytest" ...
#
# Needs Python >= 3.11 (stac-api-validator). CAIRN_PYTHON chooses the interpreter.
#
# `bash scripts/python-env.sh peers` does the same for the peer catalogues of `npm run bench:peers`
# (pycsw, stac-fastapi-opensearch) from scripts/bench/peers/requirements.txt into venv-peers.
# `bash scripts/python-env.sh pyoai` makes venv-pyoai for the pyoai harvester of
# test/interop/test_pyoai.py (pyoai needs an lxml older than the other clients accept).
set -euo pipefail
cd "$(dirname "$0")/.."

cache=${CAIRN_CACHE:-$HOME/.cache/cairn}
case "${1:-interop}" in
  interop)
    requirements=test/interop/requirements.txt
    venv=$cache/venv
    ;;
  peers)
    requirements=scripts/bench/peers/requirements.txt
    venv=$cache/venv-peers
    ;;
  pyoai)
    requirements=test/interop/pyoai/requirements.txt
    venv=$cache/venv-pyoai
    ;;
  *)
    echo "python-env: unknown environment '$1' (interop, peers or pyoai)" >&2
    exit 2
    ;;
esac
stamp=$venv/.cairn-requirements

hash=$(sha256sum "$requirements" | cut -d' ' -f1)
venv_version() { "$venv/bin/python" -c 'import sys; print("%d.%d.%d" % sys.version_info[:3])' 2>/dev/null; }

# Fast path: the venv works and was built from these requirements.
if [[ -x $venv/bin/python && -f $stamp ]] && [[ "$(cat "$stamp")" == "$(venv_version) $hash" ]]; then
  echo "$venv"
  exit 0
fi

find_python() {
  local candidate
  for candidate in ${CAIRN_PYTHON:-} python3.13 python3.12 python3.11 python3; do
    if command -v "$candidate" >/dev/null 2>&1 &&
      "$candidate" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)' 2>/dev/null; then
      command -v "$candidate"
      return 0
    fi
  done
  return 1
}

if ! python=$(find_python); then
  echo "python-env: no Python >= 3.11 found (set CAIRN_PYTHON)" >&2
  exit 1
fi
version=$("$python" -c 'import sys; print("%d.%d.%d" % sys.version_info[:3])')

mkdir -p "$cache"
if [[ -x $venv/bin/python && "$(venv_version)" == "$version" ]]; then
  echo "python-env: updating $venv" >&2
else
  echo "python-env: creating $venv with Python $version" >&2
  rm -rf "$venv"
  "$python" -m venv "$venv"
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$requirements" >&2
echo "$version $hash" >"$stamp"
echo "$venv"
