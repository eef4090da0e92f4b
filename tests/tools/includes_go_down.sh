#!/bin/sh
# The folders of tools/backplane include only down: cmd -> check, bench,
# optest, train -> cli; bench may also include train (`bench train`).
# Fails naming every include of "<folder>/..." that runs up or sideways.
#
# usage: includes_go_down.sh <tools/backplane directory>
set -eu
root=$1
allowed() { # folder -> the folders it may include
  case $1 in
  cmd) echo "cli check bench optest train" ;;
  bench) echo "cli train" ;;
  check | optest | train) echo "cli" ;;
  *) echo "" ;;
  esac
}
bad=0
for folder in cmd check bench optest train cli; do
  ok=$(allowed "$folder")
  for file in $(find "$root/$folder" -name '*.[ch]'); do
    for target in $(sed -n 's,^#include "\(cmd\|check\|bench\|optest\|cli\)/.*,\1,p' "$file"); do
      case " $ok " in
      *" $target "*) ;;
      *)
        echo "FAIL: ${file#"$root"/} includes $target/ (from $folder/ only: ${ok:-none})"
        bad=1
        ;;
      esac
    done
  done
done
[ "$bad" = 0 ] && echo "PASS: tools/backplane includes only go down"
exit "$bad"
