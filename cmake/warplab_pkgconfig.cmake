# warplab_write_pc(OUTPUT LIBDIR INCLUDEDIR VERSION LIBS_PRIVATE): writes
# warplab.pc for an install whose libdir and includedir are LIBDIR and
# INCLUDEDIR (relative to the prefix, or absolute). The file is relocatable:
# its prefix is found from where it lies (${pcfiledir}), however deep the
# libdir is (lib, lib64, lib/x86_64-linux-gnu). Also run by the tests.
function(warplab_write_pc output libdir includedir version libs_private)
  # An absolute libdir or includedir is written as it is, with the install
  # prefix; relative ones below a prefix found from the file's own place:
  # from <libdir>/pkgconfig back up, one ".." a level.
  set(relocatable ON)
  foreach(name libdir includedir)
    if(IS_ABSOLUTE "${${name}}")
      set(relocatable OFF)
      set(${name}_line "${${name}}")
    else()
      set(${name}_line "\${prefix}/${${name}}")
    endif()
  endforeach()
  if(relocatable)
    file(RELATIVE_PATH up "/prefix/${libdir}/pkgconfig" "/prefix")
    string(REGEX REPLACE "/$" "" up "${up}")
    set(prefix_line "prefix=\${pcfiledir}/${up}")
  else()
    set(prefix_line "prefix=${CMAKE_INSTALL_PREFIX}")
  endif()
  file(WRITE "${output}" "# Relocatable: the prefix is found from where this file lies.
${prefix_line}
exec_prefix=\${prefix}
libdir=${libdir_line}
includedir=${includedir_line}

Name: warplab
Description: GPU optimisation ladders (vector add, reduction, transpose, GEMM) behind a plain C API
Version: ${version}
Libs: -L\${libdir} -lwarplab
Libs.private: ${libs_private}
Cflags: -I\${includedir}
")
endfunction()
