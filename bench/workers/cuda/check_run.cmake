# Runs WORKER with ARGS (separated by spaces) and checks its exit code and
# whole stdout:
#   cmake -DWORKER=... "-DARGS=--list --quick" -DEXPECT_RC=0 -DEXPECT_STDOUT=regex -P check_run.cmake
separate_arguments(args UNIX_COMMAND "${ARGS}")
execute_process(COMMAND ${WORKER} ${args}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 50)
if(NOT rc STREQUAL EXPECT_RC)
  message(FATAL_ERROR "exit code ${rc}, expected ${EXPECT_RC}\nstdout:\n${out}\nstderr:\n${err}")
endif()
if(NOT out MATCHES "${EXPECT_STDOUT}")
  message(FATAL_ERROR "stdout does not match ${EXPECT_STDOUT}\nstdout:\n${out}\nstderr:\n${err}")
endif()
