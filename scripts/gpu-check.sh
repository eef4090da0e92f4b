#!/usr/bin/env bash
# The cuda plugin's check on a GPU, in one call, within a few minutes.
#
#   scripts/gpu-check.sh --prepare   (here, without a GPU) builds build-gpu/
#       (Release, only what the check runs) and copies the shared libraries
#       it needs beyond glibc and the CUDA driver into build-gpu/deps/, so the
#       build can travel to the GPU machine (the device tool's `carry`).
#   scripts/gpu-check.sh              (on the GPU machine, repository root)
#       uses the carried build-gpu/ when its `backplane` runs there, else
#       builds one in place; then writes under $OUT (./gpu-check-out when
#       unset), one file per step, and prints summary.txt last:
#         env.txt      nvidia-smi, nvcc, the libraries found
#         build.log    the build (or "carried")
#         info.txt     backplane info (the cuda plugin listed, not rejected)
#         check.txt    backplane check --plugin cuda
#         ctest.txt    the cuda-labelled tests (cuda.device runs, not skipped)
#         bench.txt    backplane bench copy launch ops --plugin cuda, each
#                      row beside CUDA called directly in the same run
#         train.txt    backplane train --device cuda, if train takes --device
#
# Budgets judged in bench.txt: copies >= 95 % of cudaMemcpyAsync, empty
# launch + sync <= 1 us above cuLaunchKernel + sync. The exit status is the
# number of failed steps.
set -u -o pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build-gpu
targets=(backplane backplane_cuda backplane_vcpu cuda_compile cuda_plugin
         cuda_target cuda_device)

prepare() {
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DBP_WITH_CUDA=ON || return 1
  cmake --build "$build" -j"$(nproc)" --target "${targets[@]}" || return 1
  # Everything the binaries load that is neither glibc nor the driver.
  mkdir -p "$build/deps"
  find "$build/bin" "$build/lib" "$build/tests" -type f -perm -u+x \
      -o -type f -name '*.so*' | xargs ldd 2>/dev/null |
    awk '/=> \// {print $3}' | sort -u |
    grep -Ev '/(libc|libm|libdl|librt|libpthread|ld-linux[^/]*|libcuda)\.so' |
    grep -v "^$build" | xargs -r cp -Lt "$build/deps"
  du -sh "$build"
}

if [ "${1:-}" = "--prepare" ]; then
  prepare
  exit $?
fi

out=${OUT:-$root/gpu-check-out}
mkdir -p "$out"
failed=0
summary=$out/summary.txt
: >"$summary"
step() { # step NAME RC
  local verdict=PASS
  [ "$2" -eq 0 ] || { verdict="FAIL (exit $2)"; failed=$((failed + 1)); }
  printf '%-8s %s\n' "$1" "$verdict" | tee -a "$summary"
}

# CUDA's libraries wherever this machine keeps them (the toolkit, or the
# nvidia-* Python wheels), and what a carried build brought along.
cuda_dirs=$(find /usr/local/cuda*/lib64 /usr/lib/x86_64-linux-gnu \
  /opt /usr/local/lib -maxdepth 6 \
  \( -name 'libnccl.so.2' -o -name 'libcublas.so.1*' -o -name 'libnvrtc.so.1*' \
     -o -name 'libcudart.so.1*' \) -printf '%h\n' 2>/dev/null | sort -u |
  paste -sd:)
export LD_LIBRARY_PATH=$build/deps:${cuda_dirs}:${LD_LIBRARY_PATH:-}

{
  date -u
  nvidia-smi || true
  nvcc --version || true
  echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
} >"$out/env.txt" 2>&1

# A carried build records this checkout's path: give it that path here too.
if [ -f "$build/CMakeCache.txt" ]; then
  source_dir=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' \
    "$build/CMakeCache.txt")
  if [ -n "$source_dir" ] && [ "$source_dir" != "$root" ] &&
    [ ! -e "$source_dir" ]; then
    mkdir -p "$(dirname "$source_dir")" && ln -s "$root" "$source_dir"
  fi
fi
if [ -x "$build/bin/backplane" ] && "$build/bin/backplane" --help >/dev/null 2>&1
then
  echo "carried build: $build" >"$out/build.log"
  step build 0
else
  rm -rf "$build"
  prepare >"$out/build.log" 2>&1
  step build $?
fi
bp=$build/bin/backplane

"$bp" info >"$out/info.txt" 2>&1
rc=$?
grep -q '^Rejected plugins:.*' "$out/info.txt" &&
  grep -A20 '^Rejected plugins:' "$out/info.txt" | grep -q cuda && rc=1
step info $rc

timeout 300 "$bp" check --plugin cuda >"$out/check.txt" 2>&1
step check $?

(cd "$build" && timeout 300 ctest -L cuda --output-on-failure) \
  >"$out/ctest.txt" 2>&1
rc=$?
grep -q 'cuda.device .*Skipped\|Not Run' "$out/ctest.txt" && rc=1
step ctest $rc

timeout 300 "$bp" bench copy launch ops --plugin cuda >"$out/bench.txt" 2>&1
step bench $?

if "$bp" train --help 2>&1 | grep -q -- '--device\b'; then
  timeout 300 "$bp" train --device cuda >"$out/train.txt" 2>&1
  step train $?
else
  echo "backplane train takes no --device yet: skipped" >"$out/train.txt"
  echo "train    SKIP (no --device)" | tee -a "$summary"
fi

echo "--- bench ---" >>"$summary"
cat "$out/bench.txt" >>"$summary"
echo "failed steps: $failed" | tee -a "$summary"
exit "$failed"
