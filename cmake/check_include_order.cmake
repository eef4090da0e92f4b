# Fails when a source file under SRC includes a unit of SRC at its own level
# or above. ORDER is a file of levels, lowest first, one per line, each a list
# of units separated by spaces ('#' starts a comment). A unit is a folder
# ("base": every file under base/) or a file stem ("comm/task": comm/task.h
# and comm/task.c); a file belongs to the most specific unit naming it.
# Includes of paths that name no unit (public headers) are not checked.
# Usage: cmake -DSRC=<dir> -DORDER=<file> -P check_include_order.cmake
cmake_minimum_required(VERSION 3.16)

file(STRINGS ${ORDER} lines)
set(units "")
set(level 0)
foreach(line IN LISTS lines)
  string(REGEX REPLACE "#.*" "" line "${line}")
  string(STRIP "${line}" line)
  if(line STREQUAL "")
    continue()
  endif()
  math(EXPR level "${level} + 1")
  string(REGEX REPLACE "[ \t]+" ";" names "${line}")
  foreach(name IN LISTS names)
    set(level_of_${name} ${level})
    list(APPEND units ${name})
  endforeach()
endforeach()

# Sets `out` to the unit of `path` (relative to SRC), or "".
function(unit_of path out)
  string(REGEX REPLACE "\\.[ch]$" "" stem "${path}")
  set(owner "")
  foreach(unit IN LISTS units)
    string(LENGTH "${unit}" n)
    string(LENGTH "${owner}" m)
    if((stem STREQUAL unit OR path MATCHES "^${unit}/") AND n GREATER m)
      set(owner ${unit})
    endif()
  endforeach()
  set(${out} "${owner}" PARENT_SCOPE)
endfunction()

set(violations 0)
file(GLOB_RECURSE files RELATIVE ${SRC} ${SRC}/*.c ${SRC}/*.h)
foreach(file IN LISTS files)
  unit_of(${file} owner)
  if(NOT owner)
    message(SEND_ERROR "${file}: in no unit of ${ORDER}")
    math(EXPR violations "${violations} + 1")
    continue()
  endif()
  file(STRINGS ${SRC}/${file} includes REGEX "^[ \t]*#[ \t]*include[ \t]+\"")
  foreach(include IN LISTS includes)
    string(REGEX MATCH "\"([^\"]+)\"" _ "${include}")
    unit_of(${CMAKE_MATCH_1} target)
    if(NOT target OR target STREQUAL owner)
      continue()
    endif()
    if(NOT level_of_${target} LESS level_of_${owner})
      message(SEND_ERROR "${file} (${owner}, level ${level_of_${owner}}) "
                         "includes \"${CMAKE_MATCH_1}\" (${target}, level "
                         "${level_of_${target}}): not below it")
      math(EXPR violations "${violations} + 1")
    endif()
  endforeach()
endforeach()
list(LENGTH files checked)
if(violations)
  message(FATAL_ERROR "${violations} include(s) do not go down (${ORDER})")
endif()
message(STATUS "include order: ${checked} files, every include goes down")
