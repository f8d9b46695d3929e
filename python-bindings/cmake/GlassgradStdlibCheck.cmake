# Warns at configure time when the C++ compiler links libstdc++ statically into shared libraries.
#
# glassgrad._C is a shared module loaded into a Python process that also loads the system's
# libstdc++ (numpy, the NVIDIA driver's libcuda). A module carrying its own static copy then
# runs two C++ runtimes side by side; on a GPU machine whose default compiler did this, the
# process crashed in ostream code on the first CUDA tensor. The probe builds a one-function
# shared library with the configured compiler and reads its dynamic section: a libstdc++ linked
# dynamically appears as NEEDED libstdc++.so.N. tools/gpu_check.sh picks such a compiler itself.
function(glassgrad_check_dynamic_libstdcxx)
  if(NOT UNIX OR APPLE OR NOT CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    return()
  endif()
  find_program(GLASSGRAD_READELF NAMES readelf "${CMAKE_READELF}")
  if(NOT GLASSGRAD_READELF)
    message(STATUS "glassgrad: readelf not found; not checking how ${CMAKE_CXX_COMPILER} links libstdc++")
    return()
  endif()
  set(dir "${CMAKE_BINARY_DIR}/glassgrad_stdlib_probe")
  file(MAKE_DIRECTORY "${dir}")
  file(WRITE "${dir}/probe.cpp"
       "#include <sstream>\nint glassgrad_probe(int v) { std::ostringstream s; s << v; return int(s.str().size()); }\n")
  execute_process(COMMAND "${CMAKE_CXX_COMPILER}" -shared -fPIC ${CMAKE_SHARED_LINKER_FLAGS} "${dir}/probe.cpp"
                          -o "${dir}/probe.so"
                  RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
  if(NOT rc EQUAL 0)
    message(STATUS "glassgrad: could not build the libstdc++ probe with ${CMAKE_CXX_COMPILER}; not checked")
    return()
  endif()
  execute_process(COMMAND "${GLASSGRAD_READELF}" -d "${dir}/probe.so" OUTPUT_VARIABLE dynamic ERROR_QUIET)
  if(dynamic MATCHES "NEEDED[^\n]*libstdc\\+\\+")
    message(STATUS "glassgrad: ${CMAKE_CXX_COMPILER} links libstdc++ dynamically (good)")
  else()
    message(WARNING "glassgrad: ${CMAKE_CXX_COMPILER} links libstdc++ statically into shared libraries, so "
                    "glassgrad._C would carry its own copy next to the system's (loaded by numpy and the "
                    "NVIDIA driver) and may crash on the first CUDA tensor.\n"
                    "  fix: configure with a compiler that links it dynamically, e.g. "
                    "CXX=/usr/bin/g++ CUDAHOSTCXX=/usr/bin/g++ (tools/gpu_check.sh chooses one itself)")
  endif()
endfunction()
