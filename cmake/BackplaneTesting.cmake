# bp_add_test(NAME <folder>.<subject> SOURCES ... [LIBS ...] [LABELS ...]
#             [ENV ...] [TIMEOUT s])
# One cmocka executable registered with CTest (tests/README.md has the naming
# convention). The CTest name is NAME; the executable target (and binary in
# <build>/tests) is NAME with dots turned into underscores, e.g. alloc.blocks
# builds alloc_blocks. Label `concurrency` puts a test in the ThreadSanitizer
# run of CI. The caller reads the target name back from BP_TEST_TARGET.
function(bp_add_test)
  cmake_parse_arguments(T "" "NAME;TIMEOUT" "SOURCES;LIBS;LABELS;ENV" ${ARGN})
  string(REPLACE "." "_" _target ${T_NAME})
  add_executable(${_target} ${T_SOURCES})
  target_link_libraries(${_target} PRIVATE PkgConfig::CMOCKA Threads::Threads
                                           ${T_LIBS})
  target_include_directories(${_target} PRIVATE ${PROJECT_SOURCE_DIR}/src
                                                ${PROJECT_SOURCE_DIR}/tests)
  set_target_properties(${_target} PROPERTIES RUNTIME_OUTPUT_DIRECTORY
                                              ${PROJECT_BINARY_DIR}/tests)
  add_test(NAME ${T_NAME} COMMAND ${_target})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 300)
  endif()
  set_tests_properties(${T_NAME} PROPERTIES TIMEOUT ${T_TIMEOUT}
                       LABELS "${T_LABELS}"
                       ENVIRONMENT "BACKPLANE_ALLOW_INSECURE_PLUGINS=0;${T_ENV}")
  set(BP_TEST_TARGET ${_target} PARENT_SCOPE)
endfunction()
