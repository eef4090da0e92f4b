#!/bin/sh
# Runs an MPI program on H hosts x K ranks made by hosts.sh, and removes the
# hosts afterwards whatever happens (exit, failure, signal):
#
#   mpirun_on_hosts.sh H K [-t SECONDS] [-f FAULT_SCRIPT] [-n NETEM] [-p]
#                      PROGRAM [ARGS..]
#
# mpirun runs on host 0 (its own namespace: Open MPI's daemons on the other
# hosts reach it over the test subnet) and starts the other hosts' daemons
# through hosts.sh's rsh agent. Between hosts Open MPI uses TCP on the test
# subnet only; inside a host, shared memory (vader). Ranks fill host 0 first
# (ranks 0..K-1), then host 1, and so on. The environment passes through to
# every rank, as `mpirun -x` would pass it to real hosts, with HOSTS_DIR (the
# harness's directory, on a file system every host shares) added.
#
# FAULT_SCRIPT, if given, runs beside mpirun (in the machine's namespace) with
# HOSTS_DIR and HOSTS_SH set, to cut or slow links while the program runs.
# NETEM (say "delay 2ms loss 1%") is put on every host's link before mpirun
# starts (tc netem).
# Exits with mpirun's status, 124 on timeout, 77 when hosts cannot be made.
# With -p, for programs whose ranks leave without MPI_Finalize: exits 0 only
# when each of the H x K ranks printed a line "rank R: PASS" (mpirun then
# reports an improper exit, which says nothing about them).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
hosts="$here/hosts.sh"
nhosts=$1 per_host=$2
shift 2
limit=120 fault="" passes="" netem=""
while :; do
  case "${1:-}" in
  -t) limit=$2; shift 2 ;;
  -f) fault=$2; shift 2 ;;
  -p) passes=1; shift ;;
  -n) netem=$2; shift 2 ;;
  *) break ;;
  esac
done
dir=$(mktemp -d /tmp/bp-hosts.XXXXXX)
cleanup() {
  "$hosts" destroy "$dir"
  rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP
"$hosts" create "$dir" "$nhosts"
prefix=$(cat "$dir/prefix")
i=0
while [ "$i" -lt "$nhosts" ]; do
  echo "${prefix}h$i slots=$per_host" >>"$dir/hostfile"
  i=$((i + 1))
done
if [ -n "$netem" ]; then
  i=0
  while [ "$i" -lt "$nhosts" ]; do
    # shellcheck disable=SC2086 # netem's words
    "$hosts" netem "$dir" "$i" $netem
    i=$((i + 1))
  done
fi
export HOSTS_DIR="$dir" OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fault_pid=""
if [ -n "$fault" ]; then
  HOSTS_SH=$hosts sh "$fault" &
  fault_pid=$!
fi
# With -p a rank that leaves without MPI_Finalize must not make mpirun kill
# the others before they report.
exit_mca=""
[ -z "$passes" ] || exit_mca="--mca orte_allowed_exit_without_sync 1"
status=0
# shellcheck disable=SC2086 # exit_mca's words
timeout -k 5 "$limit" "$hosts" enter "${prefix}h0" \
  mpirun --hostfile "$dir/hostfile" -np $((nhosts * per_host)) \
  --bind-to none --oversubscribe \
  --mca plm_rsh_agent "$hosts agent" \
  --mca oob_tcp_if_include 10.77.0.0/24 \
  --mca btl self,vader,tcp --mca btl_tcp_if_include 10.77.0.0/24 \
  --mca btl_vader_single_copy_mechanism none $exit_mca \
  "$@" >"$dir/output" 2>&1 || status=$?
cat "$dir/output"
# The fault script may still wait for ranks that never came: it ends here.
[ -z "$fault_pid" ] || kill "$fault_pid" 2>/dev/null || true
if [ -n "$passes" ] && [ "$status" -ne 124 ]; then
  passed=$(grep -c -E '^rank [0-9]+: PASS$' "$dir/output" || true)
  echo "$passed of $((nhosts * per_host)) ranks passed"
  [ "$passed" -eq $((nhosts * per_host)) ] && status=0 || status=1
fi
exit "$status"
