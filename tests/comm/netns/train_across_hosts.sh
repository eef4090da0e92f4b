#!/bin/sh
# `backplane train` on 2 hosts x 2 ranks (mpirun_on_hosts.sh: Open MPI over
# TCP between the hosts, the transport chosen by itself) must reach the same
# test accuracy and the same per-epoch losses as 4 ranks on one host:
#
#   train_across_hosts.sh BACKPLANE [TRAIN ARGS..]
#
# Exits 77 where the hosts cannot be made (mpirun_on_hosts.sh).
set -u
here=$(cd "$(dirname "$0")" && pwd)
backplane=$1
shift
out=$(mktemp -d /tmp/bp-train-hosts.XXXXXX)
trap 'rm -rf "$out"' EXIT
# The numbers that must agree: accuracy and every epoch's loss.
numbers() {
  sed -n '/"test_accuracy"/p; /"epoch_loss"/,/\]/p' "$1" | tr -d ' \n'
}
sh "$here/mpirun_on_hosts.sh" 1 4 -t 100 "$backplane" train --json "$@" \
  >"$out/one" 2>&1
status=$?
[ "$status" -eq 77 ] && exit 77
[ "$status" -eq 0 ] || { cat "$out/one"; echo "one host: exit $status"; exit 1; }
sh "$here/mpirun_on_hosts.sh" 2 2 -t 100 "$backplane" train --json "$@" \
  >"$out/two" 2>&1
status=$?
[ "$status" -eq 0 ] || { cat "$out/two"; echo "two hosts: exit $status"; exit 1; }
one=$(numbers "$out/one") two=$(numbers "$out/two")
echo "one host:  $one"
echo "two hosts: $two"
[ -n "$one" ] && [ "$one" = "$two" ]
