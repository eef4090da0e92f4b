# PyTorch for the PrivateUse1 bridge (frameworks/torch): Debian's
# python3-torch (the Python side) and libtorch-dev (its C++ headers and
# libraries), which must be the same release. Sets:
#   BP_TORCH_FOUND        TRUE when the Python imports torch and the headers
#                         and libraries of the same major.minor are found
#   BP_TORCH_VERSION      torch.__version__, e.g. 1.13.0a0
#   BP_TORCH_PYTHON       the Python that imports it
#   BP_TORCH_INCLUDE_DIRS the C++ include directories (torch, pybind11,
#                         Python.h)
#   BP_TORCH_LIBRARIES    libc10, libtorch_cpu and libtorch_python
#   BP_TORCH_CXX11_ABI    torch._C._GLIBCXX_USE_CXX11_ABI (1 or 0)
#   BP_WITH_TORCH         option, ON by default when torch is found
# Without torch nothing else in the build changes.
set(BP_TORCH_FOUND FALSE)
set(BP_TORCH_PYTHON "")
foreach(_bp_py IN ITEMS "${BP_VENV_PYTHON}" /usr/bin/python3)
  if(NOT BP_TORCH_PYTHON AND EXISTS "${_bp_py}")
    execute_process(
      COMMAND "${_bp_py}" -c
              "import sysconfig, torch; print(torch.__version__, int(torch._C._GLIBCXX_USE_CXX11_ABI), sysconfig.get_paths()['include'], sep=';')"
      RESULT_VARIABLE _bp_torch_rc
      OUTPUT_VARIABLE _bp_torch_out
      ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE
      TIMEOUT 120)
    if(_bp_torch_rc EQUAL 0)
      string(REGEX MATCH "[^\n]*$" _bp_torch_out "${_bp_torch_out}")
      list(LENGTH _bp_torch_out _bp_torch_fields)
      if(_bp_torch_fields EQUAL 3)
        set(BP_TORCH_PYTHON "${_bp_py}")
        list(GET _bp_torch_out 0 BP_TORCH_VERSION)
        list(GET _bp_torch_out 1 BP_TORCH_CXX11_ABI)
        list(GET _bp_torch_out 2 _bp_torch_python_include)
      endif()
    endif()
  endif()
endforeach()

if(BP_TORCH_PYTHON)
  find_path(BP_TORCH_INCLUDE_DIR torch/library.h
            PATHS /usr/include /usr/lib/python3/dist-packages/torch/include)
  find_file(BP_TORCH_VERSION_HEADER torch/version.h
            PATHS /usr/include/torch/csrc/api/include
                  /usr/lib/python3/dist-packages/torch/include/torch/csrc/api/include)
  find_library(BP_TORCH_C10_LIBRARY c10
               PATHS /usr/lib/python3/dist-packages/torch/lib)
  find_library(BP_TORCH_CPU_LIBRARY torch_cpu
               PATHS /usr/lib/python3/dist-packages/torch/lib)
  find_library(BP_TORCH_PYTHON_LIBRARY torch_python
               PATHS /usr/lib/python3/dist-packages/torch/lib)
  find_path(BP_TORCH_PYBIND11_DIR pybind11/pybind11.h
            PATHS /usr/include /usr/lib/python3/dist-packages/torch/include)
  if(BP_TORCH_INCLUDE_DIR AND BP_TORCH_VERSION_HEADER AND BP_TORCH_C10_LIBRARY
     AND BP_TORCH_CPU_LIBRARY AND BP_TORCH_PYTHON_LIBRARY
     AND BP_TORCH_PYBIND11_DIR AND EXISTS "${_bp_torch_python_include}/Python.h")
    # The headers must be the release the Python runs (the C++ ABI of the
    # kernel registrations changes between releases).
    file(STRINGS "${BP_TORCH_VERSION_HEADER}" _bp_torch_hdr
         REGEX "define TORCH_VERSION_(MAJOR|MINOR) ")
    string(REGEX REPLACE ".*MAJOR ([0-9]+).*MINOR ([0-9]+).*" "\\1.\\2"
           _bp_torch_hdr_version "${_bp_torch_hdr}")
    if(BP_TORCH_VERSION MATCHES "^${_bp_torch_hdr_version}\\.")
      set(BP_TORCH_FOUND TRUE)
      get_filename_component(_bp_torch_api
        "${BP_TORCH_VERSION_HEADER}/../.." ABSOLUTE)
      set(BP_TORCH_INCLUDE_DIRS "${BP_TORCH_INCLUDE_DIR}" "${_bp_torch_api}"
          "${BP_TORCH_PYBIND11_DIR}" "${_bp_torch_python_include}")
      set(BP_TORCH_LIBRARIES "${BP_TORCH_C10_LIBRARY}"
          "${BP_TORCH_CPU_LIBRARY}" "${BP_TORCH_PYTHON_LIBRARY}")
    else()
      message(STATUS "PyTorch: ${BP_TORCH_PYTHON} has torch "
        "${BP_TORCH_VERSION} but the C++ headers are ${_bp_torch_hdr_version}")
    endif()
  endif()
endif()

option(BP_WITH_TORCH "Build the PyTorch bridge (frameworks/torch)"
       ${BP_TORCH_FOUND})
if(BP_WITH_TORCH AND NOT BP_TORCH_FOUND)
  message(WARNING "BP_WITH_TORCH=ON but torch and its C++ headers "
                  "(python3-torch, libtorch-dev) were not found: building "
                  "without the PyTorch bridge")
  set(BP_WITH_TORCH OFF)
endif()
if(BP_TORCH_FOUND)
  message(STATUS "PyTorch ${BP_TORCH_VERSION}: ${BP_TORCH_PYTHON} "
                 "(BP_WITH_TORCH=${BP_WITH_TORCH})")
else()
  message(STATUS "PyTorch: not found (python3-torch and libtorch-dev)")
endif()
