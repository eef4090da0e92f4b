#!/bin/sh
# Builds the two toy DIOPI-IMPL libraries (old_style/, new_style/) as the
# out-of-tree CMake projects a vendor would have, against Backplane's
# headers only, into <out_dir>/old and <out_dir>/new.
#
# usage: build_libraries.sh <source_dir> <out_dir> <generator> <c_compiler>
set -eu
here=$(cd "$(dirname "$0")" && pwd)
source_dir=$1
out_dir=$2
generator=$3
c_compiler=$4
umask 022
mkdir -p "$out_dir"
for style in old new; do
  build=$out_dir/$style
  cmake -S "$here/${style}_style" -B "$build" -G "$generator" \
    -DCMAKE_C_COMPILER="$c_compiler" \
    -DBACKPLANE_INCLUDE_DIR="$source_dir/include" >"$build.log" 2>&1 ||
    { cat "$build.log" >&2; exit 1; }
  cmake --build "$build" >>"$build.log" 2>&1 || { cat "$build.log" >&2; exit 1; }
done
echo "built $out_dir/old and $out_dir/new"
