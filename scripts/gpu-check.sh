#!/usr/bin/env bash
# The cuda plugin's check on a GPU, in one call, within a few minutes.
#
#   scripts/gpu-check.sh --prepare [BUILD]   (here, no GPU needed)
#       stages what the check runs from the build folder BUILD (default
#       build/, built with the cuda plugin) into build-gpu/ (under 64 MiB):
#       bin/, lib/, the cuda test programs, the shared libraries they need
#       beyond glibc and CUDA (deps/; the GPU machine's toolkit brings
#       NVRTC), debug info stripped, and the absolute paths of BUILD and of
#       this checkout (ORIGIN, SOURCE: the
#       programs have it compiled in). build-gpu/ then travels to the GPU
#       machine (the device tool's `carry`).
#   scripts/gpu-check.sh                     (on the GPU machine, repo root)
#       uses build-gpu/ when its `backplane` runs there, else configures and
#       builds one there; writes one file per step under $OUT
#       (build-gpu-check-out/ when unset) and prints summary.txt last:
#         env.txt     nvidia-smi, nvcc, where CUDA's libraries were found
#         build.log   "carried" or the build's log
#         info.txt    backplane info: the cuda plugin loaded, not rejected
#         check.txt   backplane check --plugin cuda
#         tests.txt   the cuda-labelled tests; cuda.device must run, not skip
#         bench.txt   backplane bench copy launch ops --plugin cuda, each row
#                     beside CUDA called directly in the same run
#         train.txt   backplane train --device cuda --devices 1, if train
#                     takes --device
#
# Budgets judged in bench.txt: copies >= 95 % of cudaMemcpyAsync, empty
# launch + sync <= 1 us above cuLaunchKernel + sync. The exit status is the
# number of failed steps.
set -u -o pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
staged=$root/build-gpu
cuda_tests=(cuda_compile cuda_staging cuda_codegen cuda_plugin cuda_target cuda_device
  cuda_ops_compile cuda_ops_library cuda_ops_device)

prepare() { # prepare BUILD
  local build
  build=$(cd "$1" && pwd) || return 1
  [ -x "$build/bin/backplane" ] && [ -x "$build/tests/cuda_device" ] || {
    echo "$build has no backplane or cuda tests: build it first" >&2
    return 1
  }
  rm -rf "$staged"
  mkdir -p "$staged/tests" "$staged/deps"
  cp -a "$build/bin" "$build/lib" "$staged/"
  for t in "${cuda_tests[@]}"; do cp -a "$build/tests/$t" "$staged/tests/"; done
  # The framework bridges need their frameworks, which the GPU check does
  # not run (and Paddle's libraries alone are over the size limit).
  rm -rf "$staged/lib/backplane/paddle" "$staged/lib/backplane/torch"
  echo "$build" >"$staged/ORIGIN"
  echo "$root" >"$staged/SOURCE"
  # The digits data set train reads (Debian's python3-sklearn; the GPU
  # machine has no such package).
  local digits=/usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz
  [ -f "$digits" ] && mkdir -p "$staged/data" && cp "$digits" "$staged/data/"
  # Everything the programs load that is neither glibc, nor CUDA (NVRTC is
  # 100 MiB; the GPU machine's toolkit has it), nor built here.
  find "$staged" -type f \( -perm -u+x -o -name '*.so*' \) -print0 |
    xargs -0 ldd 2>/dev/null | awk '/=> \// {print $3}' | sort -u |
    grep -Ev '/(libc|libm|libdl|librt|libpthread|libcuda|libnvrtc)\.so|/ld-linux' |
    grep -v "^$build/" | xargs -r cp -Lt "$staged/deps"
  find "$staged" -type f \( -perm -u+x -o -name '*.so*' -o -name '*.a' \) \
    -exec strip --strip-debug {} + 2>/dev/null
  # Compressed, so the staged build stays under the carry limit; the GPU
  # side unpacks it.
  tar -C "$staged" -cJf "$staged/deps.tar.xz" deps && rm -rf "$staged/deps"
  du -sh "$staged"
}

if [ "${1:-}" = "--prepare" ]; then
  prepare "${2:-$root/build}"
  exit $?
fi

out=${OUT:-$root/build-gpu-check-out}
mkdir -p "$out"
summary=$out/summary.txt
: >"$summary"
failed=0
step_timeout=${GPU_CHECK_STEP_TIMEOUT:-300} # seconds a step may run
step() { # step NAME RC [NOTE]
  local verdict=PASS
  [ "$2" -eq 0 ] || { verdict="FAIL (exit $2)"; failed=$((failed + 1)); }
  printf '%-8s %s %s\n' "$1" "$verdict" "${3:-}" | tee -a "$summary"
}

# CUDA's libraries wherever this machine keeps them (the toolkit, or the
# nvidia-* Python wheels), after what the staged build brought along.
cuda_dirs=$(find /usr/local/cuda*/lib64 /usr/local/cuda*/targets \
  /usr/lib/x86_64-linux-gnu /opt /usr/local/lib -maxdepth 10 \
  \( -name 'libnccl.so.2' -o -name 'libcublas.so.1*' -o -name 'libnvrtc.so.1*' \
  -o -name 'libcudart.so.1*' \) -printf '%h\n' 2>/dev/null | sort -u | paste -sd:)
if [ -f "$staged/deps.tar.xz" ] && [ ! -d "$staged/deps" ]; then
  tar -C "$staged" -xJf "$staged/deps.tar.xz"
fi
export LD_LIBRARY_PATH=$staged/deps:${cuda_dirs}:${LD_LIBRARY_PATH:-}
{
  date -u
  nvidia-smi || true
  nvcc --version || true
  echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
} >"$out/env.txt" 2>&1

build=""
if [ -f "$staged/ORIGIN" ]; then
  origin=$(cat "$staged/ORIGIN")
  source_dir=$(cat "$staged/SOURCE" 2>/dev/null || echo "$root")
  # The staged programs name files by their source and build folders'
  # paths: give those paths to this checkout and the staged copy here.
  if [ ! -e "$source_dir" ]; then
    mkdir -p "$(dirname "$source_dir")" && ln -s "$root" "$source_dir"
  fi
  if [ ! -e "$origin" ]; then
    mkdir -p "$(dirname "$origin")" && ln -s "$staged" "$origin"
  fi
  if "$origin/bin/backplane" info >/dev/null 2>&1; then
    build=$origin
    echo "carried: $staged (as $origin)" >"$out/build.log"
    step build 0 "(carried)"
  fi
fi
if [ -z "$build" ]; then
  build=$root/build-gpu-local
  {
    cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DBP_WITH_CUDA=ON &&
      cmake --build "$build" -j"$(nproc)" --target backplane backplane_cuda \
        backplane_vcpu backplane_cuda_ops backplane_ops_ref "${cuda_tests[@]}"
  } >"$out/build.log" 2>&1
  step build $? "(built here)"
fi
bp=$build/bin/backplane

"$bp" info >"$out/info.txt" 2>&1
rc=$?
sed -n '/^Rejected plugins:/,$p' "$out/info.txt" | grep -q cuda && rc=1
grep -q '^cuda ' "$out/info.txt" || rc=1
step info $rc

timeout "$step_timeout" "$bp" check --plugin cuda >"$out/check.txt" 2>&1
step check $?

rc=0
for t in "${cuda_tests[@]}"; do
  echo "=== $t" >>"$out/tests.txt"
  timeout "$step_timeout" "$build/tests/$t" >>"$out/tests.txt" 2>&1
  r=$?
  echo "=== $t: exit $r" >>"$out/tests.txt"
  [ "$r" -eq 0 ] || rc=$r # 77 (skipped) counts as a failure on a GPU
done
step tests $rc

timeout "$step_timeout" "$bp" bench copy launch ops --plugin cuda >"$out/bench.txt" 2>&1
step bench $?

if "$bp" train --help 2>&1 | grep -q -- '--device\b'; then
  # One GPU: train's default is two devices of the type.
  data=()
  [ -f "$staged/data/digits.csv.gz" ] && data=(--data "$staged/data/digits.csv.gz")
  timeout "$step_timeout" "$bp" train --device cuda --devices 1 "${data[@]}" \
    >"$out/train.txt" 2>&1
  step train $?
else
  echo "backplane train takes no --device yet: skipped" >"$out/train.txt"
  echo "train    SKIP (no --device)" | tee -a "$summary"
fi

{
  echo "--- bench ---"
  cat "$out/bench.txt"
  echo "failed steps: $failed"
} >>"$summary"
tail -n +1 "$out/bench.txt"
echo "failed steps: $failed"
exit "$failed"
