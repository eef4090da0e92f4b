#!/bin/sh
# Usage: diopi_upstream_headers.sh SOURCE_DIR C_COMPILER CXX_COMPILER DIOPI_DIR
# Compiles diopi_upstream_headers.c against DIOPI_DIR's functions.h as C11
# and C++17, and checks that Backplane's functions.h declares no op DIOPI's
# functions.h and functions_ext.h lack. Exits 77 (CTest: skipped) when no
# DIOPI checkout was named.
set -eu
src=$1 cc=$2 cxx=$3 diopi=${4:-}
if [ -z "$diopi" ]; then
  echo "skipped: no DIOPI checkout named (configure with BP_DIOPI_SOURCE_DIR)"
  exit 77
fi
upstream=$diopi/proto/include/diopi/functions.h
if [ ! -f "$upstream" ]; then
  echo "BP_DIOPI_SOURCE_DIR=$diopi has no proto/include/diopi/functions.h" >&2
  exit 1
fi
tu=$src/tests/ops/diopi_upstream_headers.c
flags="-fsyntax-only -Werror -I$src/include/backplane -I$src/include"
"$cc" -std=c11 $flags "-DDIOPI_UPSTREAM_FUNCTIONS_H=\"$upstream\"" "$tu"
"$cxx" -x c++ -std=c++17 $flags "-DDIOPI_UPSTREAM_FUNCTIONS_H=\"$upstream\"" "$tu"
# functions.h holds DIOPI's own prototypes only (of upstream's functions.h
# or functions_ext.h); Backplane's own are in functions_backplane.h.
names() { grep -o 'diopiError_t *diopi[A-Za-z0-9_]*(' "$@" |
  sed 's/.*\(diopi[A-Za-z0-9_]*\)(/\1/' | sort -u; }
theirs=$(names "$upstream" "${upstream%functions.h}functions_ext.h")
extra=$(names "$src/include/backplane/diopi/functions.h" |
  grep -vxF -e "$theirs" || true)
if [ -n "$extra" ]; then
  echo "functions.h declares ops DIOPI does not (move them to" \
    "functions_backplane.h):" $extra >&2
  exit 1
fi
echo "upstream $upstream and Backplane's functions.h agree (C11, C++17)," \
  "and every op of functions.h is DIOPI's"
