#!/bin/sh
# Creates the project's Python virtual environment with a pinned PaddlePaddle
# (the CPU wheel from PyPI, which has custom-device support built in), for the
# Paddle tests and the Paddle bridge, and a pinned scikit-build-core, the
# build back end of `pip install .` (pyproject.toml; the python.wheel test).
# scripts/install-deps.sh runs it, so `make test` and `make run` set it up;
# it can also be run on its own.
#
#   BP_VENV         where the environment goes (default: <repo>/.venv)
#   BP_SKIP_PADDLE  set to 1 to skip this step entirely
#
# The environment is made with --system-site-packages so Debian's numpy,
# torch and scikit-learn stay visible in it. It does nothing when the pinned
# version is already installed. When PyPI cannot be reached it says so and
# exits 0: the build then goes on without Paddle (its tests skip).
set -eu
PADDLE_VERSION=3.3.1
SKBUILD_VERSION=1.1.2
ROOT=$(cd "$(dirname "$0")/.." && pwd)
VENV=${BP_VENV:-$ROOT/.venv}
PY=$VENV/bin/python

[ "${BP_SKIP_PADDLE:-0}" = 1 ] && exit 0
if [ -x "$PY" ] && "$PY" -c "import sys
from importlib.metadata import version
sys.exit(version('paddlepaddle') != '$PADDLE_VERSION' or
         version('scikit-build-core') != '$SKBUILD_VERSION')" 2>/dev/null; then
  exit 0
fi

if [ ! -x "$PY" ]; then
  echo "creating $VENV (python3 -m venv --system-site-packages)"
  /usr/bin/python3 -m venv --system-site-packages "$VENV"
fi
echo "installing paddlepaddle==$PADDLE_VERSION and" \
     "scikit-build-core==$SKBUILD_VERSION into $VENV"
if ! "$PY" -m pip install -q --disable-pip-version-check --retries 2 \
     --timeout 30 --root-user-action=ignore "paddlepaddle==$PADDLE_VERSION" \
     "scikit-build-core==$SKBUILD_VERSION"; then
  echo "setup-venv: could not install paddlepaddle==$PADDLE_VERSION (is PyPI" \
       "reachable?); going on without Paddle: its tests will skip" >&2
fi
exit 0
