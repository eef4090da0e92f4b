# Writes OUTPUT, a C file defining `const char NAME[]` (NUL-terminated) and
# `const size_t NAME_size` (without the NUL) from the INPUTS concatenated in
# order. Run at build time: cmake -DOUTPUT=... -DNAME=... -DINPUTS=a;b -P.
set(text "")
foreach(input IN LISTS INPUTS)
  file(READ ${input} content HEX)
  string(APPEND text "${content}")
endforeach()
string(LENGTH "${text}" hex_length)
math(EXPR size "${hex_length} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${text}")
file(WRITE ${OUTPUT}
  "/* Generated from ${INPUTS} by embed_source.cmake. */\n"
  "#include <stddef.h>\n"
  "const char ${NAME}[] = {${bytes}0x00};\n"
  "const size_t ${NAME}_size = ${size};\n")
