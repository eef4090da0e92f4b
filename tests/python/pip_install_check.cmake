# pip install --no-build-isolation of a copy of python/ into WORK/site, then
# `import backplane` from there (not from the build tree) adds on vcpu:0.
file(REMOVE_RECURSE ${WORK})
file(COPY ${SOURCE}/python/ DESTINATION ${WORK}/src
     PATTERN build EXCLUDE PATTERN "*.egg-info" EXCLUDE)
set(ENV{BACKPLANE_SOURCE_DIR} ${SOURCE})
set(ENV{BACKPLANE_BUILD_DIR} ${BUILD})
set(ENV{PIP_NO_INDEX} 1)
execute_process(
  COMMAND ${PYTHON} -m pip install --no-build-isolation --no-deps
          --no-cache-dir --target ${WORK}/site ${WORK}/src
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "pip install failed (${rc}):\n${out}\n${err}")
endif()
set(ENV{PYTHONPATH} ${WORK}/site)
execute_process(
  COMMAND ${PYTHON} -c [[
import backplane, numpy as np
d = backplane.device("vcpu:0")
a = backplane.from_numpy(np.arange(4, dtype=np.float32), device=d)
backplane.ops.add(a, a, a, alpha=1.0)
print(backplane.__file__, backplane.to_numpy(a).tolist())
]]
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out MATCHES "/site/backplane/__init__.py \\[0.0, 2.0, 4.0, 6.0\\]")
  message(FATAL_ERROR "installed package failed (${rc}):\n${out}\n${err}")
endif()
file(GLOB so ${WORK}/site/backplane/_backplane*.so)
if(NOT so MATCHES "abi3")
  message(FATAL_ERROR "the installed extension is not abi3: ${so}")
endif()
message(STATUS "installed and ran: ${out}")
