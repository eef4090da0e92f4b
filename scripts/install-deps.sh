#!/bin/sh
# Installs the Debian packages Backplane needs, only if some are missing.
set -eu
PACKAGES="cmake ninja-build gcc g++ clang pkg-config make libjansson-dev libcmocka-dev
libopenmpi-dev openmpi-bin libopenblas-dev libjemalloc-dev libmimalloc-dev libdlpack-dev
libjpeg-dev zlib1g-dev python3-sklearn ocl-icd-opencl-dev opencl-c-headers
pocl-opencl-icd"
missing=""
for p in $PACKAGES; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "installing:$missing"
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
$SUDO apt-get update -q
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q $missing
