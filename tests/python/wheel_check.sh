#!/bin/sh
# python.wheel (label `wheel`): `pip wheel` of a copy of the source tree
# (git's tracked and unignored files) with scikit-build-core, the copy and its
# build deleted, the wheel installed into a fresh venv, then from elsewhere:
# `import backplane` loads only the package's own libraries, the CLI runs
# (`python -m backplane`, the `backplane` script: info, check, bench python,
# bench ops and train with their PyTorch baselines, bench torch saying the
# bridge is missing, memory on a history the run recorded) and the Python
# tests pass.
#
#   wheel_check.sh SOURCE WORK BUILD_PYTHON   (CMAKE_ARGS passes through)
# BUILD_PYTHON: an interpreter with scikit-build-core (the project venv of
# scripts/setup-venv.sh); the wheel is built without build isolation, so
# nothing is downloaded. Exits 77 (CTest: skipped) when BP_TEST_WHEEL is not
# 1: the build takes minutes, so `make test` leaves it to .ci/run.
set -eu
SOURCE=$1 WORK=$2 BUILD_PYTHON=$3
if [ "${BP_TEST_WHEEL:-0}" != 1 ]; then
  echo "python.wheel: set BP_TEST_WHEEL=1 to run it (.ci/run does)"
  exit 77
fi
"$BUILD_PYTHON" -c "import scikit_build_core" || {
  echo "python.wheel: $BUILD_PYTHON has no scikit-build-core" \
       "(scripts/setup-venv.sh installs it)" >&2
  exit 1
}
rm -rf "$WORK"
# The copy's build directory is <copy>/build, as in a checkout: with the
# caller's CMAKE_ARGS (compiler launcher, -Werror) the commands match the
# tree's own build, so ccache can serve it.
mkdir -p "$WORK/src" "$WORK/dist" "$WORK/run"
git -C "$SOURCE" ls-files -z --cached --others --exclude-standard |
  (cd "$SOURCE" && xargs -0 tar cf - --ignore-failed-read) |
  tar xf - -C "$WORK/src"

"$BUILD_PYTHON" -m pip wheel --no-build-isolation --no-deps --no-index \
  --disable-pip-version-check -q -w "$WORK/dist" \
  --config-settings=build-dir="$WORK/src/build" \
  "$WORK/src"
cp -r "$WORK/src/tests/python" "$WORK/run/tests"
rm -rf "$WORK/src"

/usr/bin/python3 -m venv --system-site-packages "$WORK/venv"
PY=$WORK/venv/bin/python
"$PY" -m pip install -q --no-deps --no-index --disable-pip-version-check \
  "$WORK"/dist/backplane-*.whl

cd "$WORK/run"
unset PYTHONPATH LD_LIBRARY_PATH BACKPLANE_PLUGIN_PATH BACKPLANE_OPS_LIBRARY
export BACKPLANE_VCPU_DEVICES=2 PYTHONDONTWRITEBYTECODE=1
"$PY" - "$WORK/venv" <<'PY'
import os, sys
import backplane, numpy as np
venv = os.path.realpath(sys.argv[1])
pkg = os.path.dirname(os.path.realpath(backplane.__file__))
assert pkg.startswith(venv), pkg
assert os.path.realpath(backplane.library_dir()) == os.path.join(pkg, "lib")
a = backplane.from_numpy(np.arange(4, dtype=np.float32),
                         device=backplane.device("vcpu:0"))
backplane.ops.add(a, a, a, alpha=1.0)
assert backplane.to_numpy(a).tolist() == [0.0, 2.0, 4.0, 6.0]
with open("/proc/self/maps") as maps:
    libs = {line.split()[-1] for line in maps if ".so" in line}
for lib in libs:
    if "backplane" in os.path.basename(lib):
        assert os.path.realpath(lib).startswith(pkg), lib
print("wheel: imported from", pkg, "version", backplane.__version__)
PY
"$PY" -m backplane info | grep -q "vcpu"
"$WORK/venv/bin/backplane" check --plugin vcpu --quick >/dev/null
# The Python bench measures this interpreter and the installed package.
"$PY" -m backplane bench python --quick | grep -q "no-op call"
# The PyTorch baselines of bench ops and bench train are the package's own
# scripts, run by this interpreter: one ops row, and the CNN at 2 devices
# beside DDP. bench torch names what the wheel lacks (the bridge).
if "$PY" -c "import torch" 2>/dev/null; then
  BACKPLANE_BENCH_OPS=relu "$PY" -m backplane bench ops --quick >bench.txt
  grep -q "PyTorch CPU" bench.txt || { cat bench.txt; exit 1; }
  BACKPLANE_VCPU_DEVICES=4 "$PY" -m backplane bench train --quick >bench.txt
  grep -q "PyTorch DDP gloo" bench.txt || { cat bench.txt; exit 1; }
else
  echo "python.wheel: $PY cannot import torch: no PyTorch baselines to check"
fi
"$PY" -m backplane bench torch --quick 2>&1 |
  grep -q "needs the PyTorch bridge"
# A run's allocator history, summarized and drawn by the wheel's command.
BACKPLANE_MEMORY_HISTORY=history.json "$PY" -c \
  "import backplane; backplane.zeros((256,), 'float32', 'vcpu:0')"
"$PY" -m backplane memory history.json | grep -q "vcpu:0: 1 alloc(s)"
"$PY" -m backplane memory history.json --svg history.svg
grep -q "<svg" history.svg
"$PY" -m pytest -q -p no:cacheprovider --rootdir="$WORK/run/tests" \
  "$WORK/run/tests" --ignore="$WORK/run/tests/mpi"
