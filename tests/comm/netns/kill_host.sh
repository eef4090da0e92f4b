#!/bin/sh
# Fault script for test_host_faults.c kill_host (run by mpirun_on_hosts.sh -f,
# with HOSTS_DIR set): when rank 0 says so, SIGKILLs every rank of the last
# host (the pids they wrote to HOSTS_DIR/pid.R) and counts them in
# HOSTS_DIR/killed, one line each. Gives up after 90 s.
set -u
. "$(dirname "$0")/fault_steps.sh"
await fault
r=$((last * per_host))
while [ "$r" -lt "$ranks" ]; do
  await "pid.$r"
  kill -KILL "$(cat "$HOSTS_DIR/pid.$r")"
  echo "$r" >>"$HOSTS_DIR/killed"
  r=$((r + 1))
done
