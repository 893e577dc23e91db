# The README's quick start, kept true: takes the C program between the
# <!-- quickstart --> and <!-- /quickstart --> markers of README.md, builds
# it with the C compiler against the built shared library (strict C99,
# warnings as errors), runs it, and checks that it prints EXPECT and that the
# README says so too.
#   cmake -DREADME=... -DCC=... -DCFLAGS=... -DLDFLAGS=... -DINCLUDE_DIR=...
#         -DLIBRARY=<libgpuprim.so> -DWORK_DIR=... -DEXPECT=... -P readme_quickstart.cmake
foreach(v README CC INCLUDE_DIR LIBRARY WORK_DIR EXPECT)
  if(NOT DEFINED ${v} OR "${${v}}" STREQUAL "")
    message(FATAL_ERROR "readme_quickstart.cmake: -D${v}=... is required")
  endif()
endforeach()

file(READ "${README}" text)
string(FIND "${text}" "<!-- quickstart -->" begin)
string(FIND "${text}" "<!-- /quickstart -->" end)
if(begin LESS 0 OR end LESS begin)
  message(FATAL_ERROR "${README}: no <!-- quickstart --> ... <!-- /quickstart --> block")
endif()
math(EXPR length "${end} - ${begin}")
string(SUBSTRING "${text}" ${begin} ${length} block)
if(NOT block MATCHES "```c\n(.*)\n```")
  message(FATAL_ERROR "${README}: the quick-start block holds no ```c code fence")
endif()
set(program "${CMAKE_MATCH_1}")
string(FIND "${text}" "${EXPECT}" said)
if(said LESS 0)
  message(FATAL_ERROR "${README} does not show the quick start's output '${EXPECT}'")
endif()

file(MAKE_DIRECTORY "${WORK_DIR}")
file(WRITE "${WORK_DIR}/quickstart.c" "${program}\n")
separate_arguments(cflags UNIX_COMMAND "${CFLAGS}")
separate_arguments(ldflags UNIX_COMMAND "${LDFLAGS}")
get_filename_component(libdir "${LIBRARY}" DIRECTORY)
execute_process(
  COMMAND "${CC}" ${cflags} -std=c99 -Wall -Wextra -Wpedantic -Werror -I "${INCLUDE_DIR}"
          quickstart.c -o quickstart ${ldflags} "${LIBRARY}" "-Wl,-rpath,${libdir}"
  WORKING_DIRECTORY "${WORK_DIR}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the README's quick start (${WORK_DIR}/quickstart.c) does not build:\n${out}")
endif()
execute_process(COMMAND "${WORK_DIR}/quickstart" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the README's quick start exited with ${rc}")
endif()
string(FIND "${out}" "${EXPECT}" found)
if(found LESS 0)
  message(FATAL_ERROR "the README's quick start did not print '${EXPECT}'")
endif()
