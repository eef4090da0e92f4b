# Sourced by the fault scripts of test_host_faults.c (HOSTS_DIR set): the
# world's shape from the hostfile, and waiting for a rank's file.
ranks=$(awk -F"slots=" '{ s += $2 } END { print s }' "$HOSTS_DIR/hostfile")
per_host=$(awk -F"slots=" 'NR == 1 { print $2 }' "$HOSTS_DIR/hostfile")
last=$(($(wc -l <"$HOSTS_DIR/hostfile") - 1))

# Waits for HOSTS_DIR/$1; gives up, ending the script, after 90 s.
await() {
  i=0
  while [ ! -e "$HOSTS_DIR/$1" ]; do
    i=$((i + 1))
    [ "$i" -lt 9000 ] || exit 1
    sleep 0.01
  done
}
