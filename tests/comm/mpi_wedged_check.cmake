# Runs test_mpi_wedged.c under mpirun (one rank) and passes only when the
# vcpu MPI module's watchdog ended it: exit status 70, its message naming
# the wedged call, within 20 s (the 300 ms deadline plus the watchdog's 2 s
# grace, with room for a loaded machine; without the watchdog the process
# would never end, and the timeout below ends it).
# cmake -DMPIEXEC=... -DTEST=... -P
string(TIMESTAMP started "%s")
execute_process(
  COMMAND ${MPIEXEC} --oversubscribe --bind-to none -np 1 ${TEST}
  OUTPUT_VARIABLE output
  ERROR_VARIABLE errors
  RESULT_VARIABLE result
  TIMEOUT 60)
string(TIMESTAMP ended "%s")
math(EXPR took "${ended} - ${started}")
message("${output}${errors}mpirun: ${result} after ${took} s")
if(NOT errors MATCHES "wedging MPI_Testall")
  message(FATAL_ERROR "the test never reached the wedged call")
endif()
if(NOT errors MATCHES "MPI rank 0 \\(pid [0-9]+\\): broadcast sequence 2: Open MPI did not return")
  message(FATAL_ERROR "no watchdog message naming the wedged call")
endif()
if(NOT result EQUAL 70)
  message(FATAL_ERROR "mpirun ended with ${result}, not the watchdog's 70")
endif()
if(took GREATER 20)
  message(FATAL_ERROR "the watchdog took ${took} s")
endif()
