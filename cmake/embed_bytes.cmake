# embed_bytes(FILE NAME OUT): appends to OUT a C definition
#   static const char NAME[] = {0x.., ..., 0x00};
# holding FILE's bytes and a terminating NUL (the sources the binary carries).
function(embed_bytes file name out)
  file(READ ${file} hex HEX)
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
  string(REGEX REPLACE "((0x[0-9a-f][0-9a-f],){16})" "\\1\n    " bytes "${bytes}")
  set(${out} "${${out}}static const char ${name}[] = {\n    ${bytes}0x00};\n\n" PARENT_SCOPE)
endfunction()

# embed_write(OUTPUT TEXT): writes TEXT to OUTPUT only when it differs, so
# that an unchanged embedding does not rebuild what includes it.
function(embed_write output text)
  file(WRITE ${output}.tmp "${text}")
  file(COPY_FILE ${output}.tmp ${output} ONLY_IF_DIFFERENT)
  file(REMOVE ${output}.tmp)
endfunction()
