# Runs test_mpi_failures.c under mpirun, keeping the survivors alive when a
# rank dies (--enable-recovery, orte_abort_on_non_zero_status 0), and passes
# only when every survivor printed "survivor rank R: PASS": mpirun's own exit
# status says nothing about them. cmake -DMPIEXEC=... -DNP=... -DTEST=... -P
execute_process(
  COMMAND ${MPIEXEC} --oversubscribe --bind-to none --enable-recovery
          --mca orte_abort_on_non_zero_status 0 -np ${NP} ${TEST}
  OUTPUT_VARIABLE output
  ERROR_VARIABLE errors
  RESULT_VARIABLE result
  TIMEOUT 120)
message("${output}${errors}mpirun: ${result}")
string(REGEX MATCHALL "survivor rank [0-9]+: PASS" passed "${output}")
list(LENGTH passed survivors)
math(EXPR expected "${NP} - 1")
if(NOT survivors EQUAL expected)
  message(FATAL_ERROR "${survivors} of ${expected} survivors passed")
endif()
