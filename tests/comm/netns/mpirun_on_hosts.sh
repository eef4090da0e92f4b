#!/bin/sh
# Runs an MPI program on H hosts x K ranks made by hosts.sh, and removes the
# hosts afterwards whatever happens (exit, failure, signal):
#
#   mpirun_on_hosts.sh H K [-t SECONDS] [-f FAULT_SCRIPT]
#                      [-i "PER_MILLE RATE"] [-p] [-l] PROGRAM [ARGS..]
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
# HOSTS_DIR and HOSTS_SH set, to cut links or kill ranks while the program
# runs.
# -i impairs every host's link before mpirun starts (hosts.sh impair: random
# loss of PER_MILLE in 1000 packets, sending capped at RATE, netem's 1 ms
# delay where the kernel has netem); the run then prints how many TCP
# segments the hosts sent again, and fails if none (the loss did not act).
# With -l PROGRAM is not an MPI program but a launcher that runs mpirun itself
# (`backplane bench comm --transport mpi`): it runs on host 0, and every
# mpirun it starts finds the hosts, the rsh agent and the TCP settings in its
# environment (OMPI_MCA_*, the same settings as above).
# Exits with mpirun's status, 124 on timeout, 77 when hosts cannot be made.
# With -p, for programs whose ranks leave without MPI_Finalize or are killed:
# a rank that ends so does not end the others, and the run exits 0 only when
# each of the H x K ranks printed a line "rank R: PASS" (mpirun then reports
# an improper exit, which says nothing about them), but for the ranks the
# fault script killed and counted in HOSTS_DIR/killed (one line each).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
hosts="$here/hosts.sh"
nhosts=$1 per_host=$2
shift 2
limit=120 fault="" passes="" impair="" launcher=""
while :; do
  case "${1:-}" in
  -t) limit=$2; shift 2 ;;
  -f) fault=$2; shift 2 ;;
  -p) passes=1; shift ;;
  -i) impair=$2; shift 2 ;;
  -l) launcher=1; shift ;;
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
if [ -n "$impair" ]; then
  i=0
  while [ "$i" -lt "$nhosts" ]; do
    # shellcheck disable=SC2086 # PER_MILLE RATE
    "$hosts" impair "$dir" "$i" $impair
    i=$((i + 1))
  done
fi
export HOSTS_DIR="$dir" OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fault_pid=""
if [ -n "$fault" ]; then
  HOSTS_SH=$hosts sh "$fault" &
  fault_pid=$!
fi
# With -p a rank that leaves without MPI_Finalize, or is killed, must not
# make mpirun kill the others before they report.
exit_mca=""
[ -z "$passes" ] || exit_mca="--enable-recovery --mca orte_abort_on_non_zero_status 0 --mca orte_allowed_exit_without_sync 1"
# Open MPI's settings, for this mpirun and any a launcher starts.
export OMPI_MCA_orte_default_hostfile="$dir/hostfile" \
  OMPI_MCA_plm_rsh_agent="$hosts agent" \
  OMPI_MCA_oob_tcp_if_include=10.77.0.0/24 \
  OMPI_MCA_btl=self,vader,tcp OMPI_MCA_btl_tcp_if_include=10.77.0.0/24 \
  OMPI_MCA_btl_vader_single_copy_mechanism=none
run=""
[ -n "$launcher" ] ||
  run="mpirun -np $((nhosts * per_host)) --bind-to none --oversubscribe $exit_mca"
# shellcheck disable=SC2086 # run's words
timeout -k 5 "$limit" "$hosts" enter "${prefix}h0" $run "$@" \
  >"$dir/output" 2>&1 &
mpirun_pid=$!
# How many ranks should still report: all but those the fault killed.
killed() { [ ! -f "$dir/killed" ] || wc -l <"$dir/killed"; }
alive() { echo $((nhosts * per_host - $(killed) + 0)); }
# A rank reports PASS or FAIL, or the MPI module's watchdog reports that it
# ended the rank (plugins/vcpu_mpi/mpi_watchdog.h).
reported() {
  grep -c -E '^rank [0-9]+: (PASS|FAIL)$|^backplane: vcpu MPI: MPI rank [0-9]+ .* ending this process' \
    "$dir/output" || true
}
# With -p, once every rank left has reported, the verdict is known: mpirun
# gets 0.5 s to end by itself (and to pass on what the ranks printed last),
# then is ended, TERM first and KILL 0.5 s later (after ranks died, Open MPI
# 4.1's mpirun may wait forever for their host's daemon, and takes seconds to
# end on TERM); whatever it leaves on the hosts, cleanup kills.
if [ -n "$passes" ]; then
  grace=0
  while kill -0 "$mpirun_pid" 2>/dev/null; do
    if [ "$(reported)" -ge "$(alive)" ]; then
      grace=$((grace + 1))
      [ "$grace" -ne 6 ] || kill -TERM "$mpirun_pid" 2>/dev/null || true
      [ "$grace" -lt 11 ] || kill -KILL "$mpirun_pid" 2>/dev/null || true
    fi
    sleep 0.1
  done
fi
status=0
wait "$mpirun_pid" || status=$?
cat "$dir/output"
# The fault script may still wait for ranks that never came: it ends here.
[ -z "$fault_pid" ] || kill "$fault_pid" 2>/dev/null || true
if [ -n "$passes" ] && [ "$status" -ne 124 ]; then
  passed=$(grep -c -E '^rank [0-9]+: PASS$' "$dir/output" || true)
  echo "$passed of $(alive) ranks passed ($(($(killed) + 0)) killed)"
  [ "$passed" -eq "$(alive)" ] && status=0 || status=1
fi
if [ -n "$impair" ]; then
  resent=0 i=0
  while [ "$i" -lt "$nhosts" ]; do
    resent=$((resent + $("$hosts" retransmitted "$dir" "$i")))
    i=$((i + 1))
  done
  echo "over the lossy links the hosts sent $resent TCP segments again"
  [ "$resent" -gt 0 ] || status=1
fi
exit "$status"
