#!/bin/sh
# Installs the Debian packages Backplane needs, only if some are missing, then
# the project's Python environment with PaddlePaddle (scripts/setup-venv.sh;
# BP_SKIP_PADDLE=1 skips it).
set -eu
PACKAGES="cmake ninja-build gcc g++ clang pkg-config make libjansson-dev libcmocka-dev
libopenmpi-dev openmpi-bin libopenblas-dev libjemalloc-dev libmimalloc-dev libdlpack-dev
libjpeg-dev zlib1g-dev python3-sklearn ocl-icd-opencl-dev opencl-c-headers
pocl-opencl-icd python3-dev python3-setuptools python3-pytest python3-numpy
python3-torch libtorch-dev python3-venv iproute2 util-linux"
missing=""
for p in $PACKAGES; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  echo "installing:$missing"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q $missing
fi
"$(dirname "$0")/setup-venv.sh"
