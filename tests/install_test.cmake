# Installs the build into a temporary prefix and builds a consumer against it:
# through find_package(warplab CONFIG) (shared and static) and through
# pkg-config, with the libdir one level deep (lib) and two (lib/<triplet>,
# Debian's). Checks that the shared library exports warplab_* only.
#   cmake -DBUILD_DIR=... -DSOURCE_DIR=... -DWORK_DIR=... -DCC=... -DLIBDIR=...
#         -DHAVE_SHARED=ON|OFF -P install_test.cmake
set(prefix "${WORK_DIR}/install-test/prefix")
file(REMOVE_RECURSE "${WORK_DIR}/install-test")

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    string(JOIN " " shown ${ARGN})
    message(FATAL_ERROR "${shown}: exit ${rc}\n${out}\n${err}")
  endif()
  set(last_output "${out}" PARENT_SCOPE)
endfunction()

run(${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${prefix}")
foreach(file include/warplab.h include/warplab_lab.h ${LIBDIR}/libwarplab.a ${LIBDIR}/pkgconfig/warplab.pc
        ${LIBDIR}/cmake/warplab/warplabConfig.cmake bin/warplab)
  if(NOT EXISTS "${prefix}/${file}")
    message(FATAL_ERROR "the install lacks ${file}")
  endif()
endforeach()

# Only warplab_* leaves the shared library.
if(HAVE_SHARED)
  run(nm -D --defined-only "${prefix}/${LIBDIR}/libwarplab.so")
  string(REGEX MATCHALL "[0-9a-f]+ [A-Za-z] [^\n]+" symbols "${last_output}")
  set(public 0)
  foreach(line IN LISTS symbols)
    string(REGEX REPLACE "^[0-9a-f]+ [A-Za-z] " "" name "${line}")
    if(name MATCHES "^warplab_")
      math(EXPR public "${public} + 1")
    elseif(NOT name MATCHES "^(WARPLAB_|_init$|_fini$)")
      message(FATAL_ERROR "libwarplab.so exports ${name}, not part of the API")
    endif()
  endforeach()
  if(public LESS 40)
    message(FATAL_ERROR "libwarplab.so exports only ${public} warplab_* symbols")
  endif()
  message(STATUS "libwarplab.so exports ${public} symbols, all warplab_*")
endif()

# 1. CMake: find_package(warplab CONFIG).
set(consumer "${WORK_DIR}/install-test/cmake-consumer")
run(${CMAKE_COMMAND} -S "${SOURCE_DIR}/tests/install" -B "${consumer}"
    -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_C_COMPILER=${CC} -DCMAKE_BUILD_TYPE=Release)
run(${CMAKE_COMMAND} --build "${consumer}")
foreach(program consumer_shared consumer_static)
  run("${consumer}/${program}")
  message(STATUS "find_package: ${program}: ${last_output}")
endforeach()
if(HAVE_SHARED)
  run(ldd "${consumer}/consumer_shared")
  if(NOT last_output MATCHES "${prefix}/${LIBDIR}/libwarplab.so")
    message(FATAL_ERROR "consumer_shared does not use the installed libwarplab.so:\n${last_output}")
  endif()
endif()

# The shared library through find_package where CMake finds no CUDA toolkit
# (libwarplab.so needs none of its libraries to link or to start).
if(HAVE_SHARED)
  set(bare "${WORK_DIR}/install-test/cmake-consumer-no-toolkit")
  run(${CMAKE_COMMAND} -S "${SOURCE_DIR}/tests/install" -B "${bare}" -DSHARED_ONLY=ON
      -DCMAKE_DISABLE_FIND_PACKAGE_CUDAToolkit=ON -DCMAKE_PREFIX_PATH=${prefix}
      -DCMAKE_C_COMPILER=${CC} -DCMAKE_BUILD_TYPE=Release)
  run(${CMAKE_COMMAND} --build "${bare}")
  run("${bare}/consumer_shared")
  message(STATUS "find_package without the CUDA toolkit: consumer_shared: ${last_output}")
endif()

# 2. pkg-config, from the installed prefix and from a copy whose libdir is
# two levels deep (the .pc file written the same way the build writes it).
include("${SOURCE_DIR}/cmake/warplab_pkgconfig.cmake")
set(deep "${WORK_DIR}/install-test/deep")
file(COPY "${prefix}/include" DESTINATION "${deep}")
file(GLOB libraries "${prefix}/${LIBDIR}/libwarplab*")
file(COPY ${libraries} DESTINATION "${deep}/lib/x86_64-linux-gnu")
file(READ "${prefix}/${LIBDIR}/pkgconfig/warplab.pc" installed_pc)
string(REGEX MATCH "Libs.private: [^\n]*" private "${installed_pc}")
string(REPLACE "Libs.private: " "" private "${private}")
warplab_write_pc("${deep}/lib/x86_64-linux-gnu/pkgconfig/warplab.pc" "lib/x86_64-linux-gnu"
                 "include" "0.1.0" "${private}")
foreach(root "${prefix}/${LIBDIR}" "${deep}/lib/x86_64-linux-gnu")
  set(ENV{PKG_CONFIG_PATH} "${root}/pkgconfig")
  run(pkg-config --cflags warplab)
  string(STRIP "${last_output}" cflags)
  string(REGEX REPLACE "^-I" "" include_dir "${cflags}")
  if(NOT EXISTS "${include_dir}/warplab.h")
    message(FATAL_ERROR "pkg-config --cflags gives ${cflags}: no warplab.h there")
  endif()
  run(pkg-config --variable=libdir warplab)
  string(STRIP "${last_output}" libdir)
  if(NOT EXISTS "${libdir}/libwarplab.a")
    message(FATAL_ERROR "pkg-config's libdir ${libdir} holds no libwarplab.a")
  endif()
  run(pkg-config --libs --static warplab)
  string(STRIP "${last_output}" libs)
  separate_arguments(libs UNIX_COMMAND "${libs}")
  set(program "${root}/consumer-pkg-config")
  if(HAVE_SHARED)
    run(${CC} "${SOURCE_DIR}/tests/install/consumer.c" ${cflags} ${libs} -Wl,-rpath,${libdir}
        -o "${program}")
  else()
    run(${CC} "${SOURCE_DIR}/tests/install/consumer.c" ${cflags} ${libs} -o "${program}")
  endif()
  run("${program}")
  message(STATUS "pkg-config (${root}): ${last_output}")
endforeach()
file(REMOVE_RECURSE "${WORK_DIR}/install-test")
