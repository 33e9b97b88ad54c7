# Locates FFTW (double), Boost.Program_options and GoogleTest,
# preferring the static archives so that a built binary runs where they are absent.

function(faraday_find_lib out)
  set(names ${ARGN})
  if(FARADAY_STATIC_DEPS)
    set(static_names)
    foreach(n IN LISTS names)
      list(APPEND static_names lib${n}.a)
    endforeach()
    find_library(${out} NAMES ${static_names} ${names})
  else()
    find_library(${out} NAMES ${names})
  endif()
  if(NOT ${out})
    message(FATAL_ERROR "Library ${names} not found: run tools/install_deps.sh")
  endif()
endfunction()

find_path(FFTW_INCLUDE_DIR fftw3.h)
if(NOT FFTW_INCLUDE_DIR)
  message(FATAL_ERROR "fftw3.h not found: run tools/install_deps.sh")
endif()
faraday_find_lib(FFTW_LIB fftw3)
add_library(faraday::fftw INTERFACE IMPORTED)
set_target_properties(faraday::fftw PROPERTIES
  INTERFACE_INCLUDE_DIRECTORIES "${FFTW_INCLUDE_DIR}"
  INTERFACE_LINK_LIBRARIES "${FFTW_LIB};m")

find_path(BOOST_PO_INCLUDE_DIR boost/program_options.hpp)
if(NOT BOOST_PO_INCLUDE_DIR)
  message(FATAL_ERROR "boost/program_options.hpp not found: run tools/install_deps.sh")
endif()
faraday_find_lib(BOOST_PO_LIB boost_program_options)
add_library(faraday::program_options INTERFACE IMPORTED)
set_target_properties(faraday::program_options PROPERTIES
  INTERFACE_INCLUDE_DIRECTORIES "${BOOST_PO_INCLUDE_DIR}"
  INTERFACE_LINK_LIBRARIES "${BOOST_PO_LIB}")

# libgomp and libstdc++ linked statically: the binaries then need only glibc,
# the CUDA driver and (when built with CUDA) libcufft at run time.
find_file(FARADAY_LIBGOMP_A libgomp.a PATHS /usr/lib/gcc/x86_64-linux-gnu/${CMAKE_CXX_COMPILER_VERSION_MAJOR}
          /usr/lib/gcc/x86_64-linux-gnu/12 NO_DEFAULT_PATH)
function(faraday_static_runtime target)
  if(FARADAY_STATIC_DEPS)
    get_target_property(type ${target} TYPE)
    if(type STREQUAL "EXECUTABLE")
      target_link_options(${target} PRIVATE -static-libstdc++ -static-libgcc)
      if(FARADAY_LIBGOMP_A)
        target_link_libraries(${target} PRIVATE ${FARADAY_LIBGOMP_A} dl pthread)
      endif()
    endif()
  endif()
endfunction()
