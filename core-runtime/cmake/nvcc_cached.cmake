# Runs nvcc for the kernels' fatbin, or copies it from a content-addressed cache:
#   cmake -DNVCC=<nvcc> -DARGS_FILE=<file: one nvcc option a line> -DSOURCE=<.cu> -DOUTPUT=<fatbin>
#         [-DCACHE_DIR=<dir>] -P nvcc_cached.cmake
# The key is a SHA-256 over nvcc's version, the options, and the contents of every file
# the source includes (as `nvcc -M` lists them), so any change to a kernel, a header, a flag or
# the toolkit misses. Why: the fatbin does not depend on the Python version, and building
# wheels for five Pythons (or a CI run that builds the package and then the runtime alone)
# would otherwise compile the same kernels again each time. No CACHE_DIR: nvcc runs, as always.
file(STRINGS "${ARGS_FILE}" args)

function(run_nvcc)
  execute_process(COMMAND "${NVCC}" ${args} -o "${OUTPUT}" "${SOURCE}" RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "nvcc failed (${rc}) compiling ${SOURCE}")
  endif()
endfunction()

if(NOT CACHE_DIR)
  run_nvcc()
  return()
endif()

execute_process(COMMAND "${NVCC}" --version OUTPUT_VARIABLE version RESULT_VARIABLE rc)
set(deps_file "${OUTPUT}.deps")
execute_process(COMMAND "${NVCC}" ${args} -M -MF "${deps_file}" "${SOURCE}" RESULT_VARIABLE rc_deps
                OUTPUT_QUIET ERROR_VARIABLE deps_err)
if(NOT rc EQUAL 0 OR NOT rc_deps EQUAL 0)
  message(STATUS "fatbin cache: cannot list the kernels' includes (${deps_err}); compiling without the cache")
  run_nvcc()
  return()
endif()
# Make syntax: "target: dep dep \" continued over lines; paths contain no spaces here.
file(READ "${deps_file}" deps)
string(REGEX REPLACE "^[^:]*:" "" deps "${deps}")
string(REGEX REPLACE "\\\\\n" " " deps "${deps}")
string(REGEX REPLACE "[ \t\r\n]+" ";" deps "${deps}")
list(FILTER deps EXCLUDE REGEX "^$")
list(REMOVE_DUPLICATES deps)
list(SORT deps)
# Contents, not paths: the generated source lives in each build directory (and names the
# kernel files by path, so a different source tree still misses).
set(hashes)
foreach(dep ${deps})
  file(SHA256 "${dep}" h)
  list(APPEND hashes "${h}")
endforeach()
list(SORT hashes)
string(SHA256 key "${version}\n${args}\n${hashes}")

set(cached "${CACHE_DIR}/${key}.fatbin")
if(EXISTS "${cached}")
  list(LENGTH deps n)
  message(STATUS "fatbin cache: reusing ${cached} (same nvcc, options and ${n} source files)")
  execute_process(COMMAND "${CMAKE_COMMAND}" -E copy "${cached}" "${OUTPUT}")
  return()
endif()
run_nvcc()
file(MAKE_DIRECTORY "${CACHE_DIR}")
# Copy then rename, so a concurrent build never reads a half-written entry.
string(RANDOM LENGTH 12 tag)
execute_process(COMMAND "${CMAKE_COMMAND}" -E copy "${OUTPUT}" "${cached}.${tag}.tmp")
file(RENAME "${cached}.${tag}.tmp" "${cached}")
message(STATUS "fatbin cache: stored ${cached}")
