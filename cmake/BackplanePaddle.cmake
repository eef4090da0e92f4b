# PaddlePaddle, as installed by scripts/setup-venv.sh into the project's
# virtual environment. Sets, for the Paddle tests and the Paddle bridge:
#   BP_PADDLE_FOUND        TRUE when BP_VENV_PYTHON imports paddle
#   BP_PADDLE_VERSION      e.g. 3.3.1
#   BP_PADDLE_INCLUDE_DIR  paddle.sysconfig.get_include() (device_ext.h, phi/capi)
#   BP_PADDLE_LIB_DIR      paddle.sysconfig.get_lib() (libpaddle and friends)
#   BP_WITH_PADDLE         option, ON by default when Paddle is found
# Without Paddle nothing else in the build changes.
set(BP_VENV_PYTHON "${CMAKE_SOURCE_DIR}/.venv/bin/python"
    CACHE FILEPATH "Python of the virtual environment with paddlepaddle")

set(BP_PADDLE_FOUND FALSE)
set(BP_PADDLE_VERSION "")
set(BP_PADDLE_INCLUDE_DIR "")
set(BP_PADDLE_LIB_DIR "")
if(EXISTS "${BP_VENV_PYTHON}")
  # One line: version;include;lib. Paddle logs on import; only stdout counts.
  execute_process(
    COMMAND "${BP_VENV_PYTHON}" -c
            "import paddle; print(paddle.__version__, paddle.sysconfig.get_include(), paddle.sysconfig.get_lib(), sep=';')"
    RESULT_VARIABLE _bp_paddle_rc
    OUTPUT_VARIABLE _bp_paddle_out
    ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE
    TIMEOUT 120)
  if(_bp_paddle_rc EQUAL 0)
    # Paddle may print to stdout while importing: the answer is the last line.
    string(REGEX MATCH "[^\n]*$" _bp_paddle_out "${_bp_paddle_out}")
    list(LENGTH _bp_paddle_out _bp_paddle_fields)
    if(_bp_paddle_fields EQUAL 3)
      list(GET _bp_paddle_out 0 BP_PADDLE_VERSION)
      list(GET _bp_paddle_out 1 BP_PADDLE_INCLUDE_DIR)
      list(GET _bp_paddle_out 2 BP_PADDLE_LIB_DIR)
      set(BP_PADDLE_FOUND TRUE)
    endif()
  endif()
endif()

option(BP_WITH_PADDLE "Build the PaddlePaddle tests and bridge"
       ${BP_PADDLE_FOUND})
# The option is cached ON by the first configure that found Paddle; if the
# environment has gone since, build without it rather than fail.
if(BP_WITH_PADDLE AND NOT BP_PADDLE_FOUND)
  message(WARNING "BP_WITH_PADDLE=ON but ${BP_VENV_PYTHON} cannot import "
                  "paddle (run scripts/setup-venv.sh): building without it")
  set(BP_WITH_PADDLE OFF)
endif()
if(BP_PADDLE_FOUND)
  message(STATUS "PaddlePaddle ${BP_PADDLE_VERSION}: ${BP_VENV_PYTHON} "
                 "(BP_WITH_PADDLE=${BP_WITH_PADDLE})")
else()
  message(STATUS "PaddlePaddle: not found (${BP_VENV_PYTHON}; "
                 "scripts/setup-venv.sh installs it)")
endif()
