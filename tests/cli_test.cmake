# The warplab command line, end to end: exit codes (0 ok, 1 failure, 2 usage)
# and the messages that go with them.
#   cmake -DWARPLAB=path/to/warplab -DWORK_DIR=dir -P cli_test.cmake
if(NOT WARPLAB OR NOT WORK_DIR)
  message(FATAL_ERROR "usage: cmake -DWARPLAB=... -DWORK_DIR=... -P cli_test.cmake")
endif()
set(failures 0)

# expect(RC <code> [OUT <regex>] [ERR <regex>] ARGS <arguments...>)
function(expect)
  cmake_parse_arguments(E "" "RC;OUT;ERR" "ARGS" ${ARGN})
  execute_process(COMMAND ${WARPLAB} ${E_ARGS} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE err TIMEOUT 300)
  set(problem "")
  if(NOT rc STREQUAL E_RC)
    string(APPEND problem " exit ${rc}, expected ${E_RC};")
  endif()
  if(DEFINED E_OUT AND NOT out MATCHES "${E_OUT}")
    string(APPEND problem " stdout lacks /${E_OUT}/;")
  endif()
  if(DEFINED E_ERR AND NOT err MATCHES "${E_ERR}")
    string(APPEND problem " stderr lacks /${E_ERR}/;")
  endif()
  if(problem)
    string(JOIN " " shown ${E_ARGS})
    message(SEND_ERROR "warplab ${shown}:${problem}\n--- stdout:\n${out}\n--- stderr:\n${err}")
    math(EXPR count "${failures} + 1")
    set(failures ${count} PARENT_SCOPE)
  else()
    string(JOIN " " shown ${E_ARGS})
    message(STATUS "ok: warplab ${shown} -> ${rc}")
  endif()
endfunction()

# Help and version.
expect(RC 0 OUT "usage: warplab COMMAND" ARGS --help)
expect(RC 0 OUT "^warplab [0-9]+\\.[0-9]+\\.[0-9]+\n$" ARGS --version)
expect(RC 2 ERR "usage: warplab COMMAND" ARGS)
expect(RC 2 ERR "unknown command 'frobnicate'" ARGS frobnicate)
foreach(command bench devices ladders occupancy probe show errata)
  expect(RC 0 OUT "usage: warplab ${command}" ARGS ${command} --help)
endforeach()

# The course's errata: listed, beside the lessons and in show.
expect(RC 0 OUT "vecadd.b1.*the course wrote: \"c\\[i\\] = a\\[i\\] \\+ b\\[1\\];\"" ARGS errata)
expect(RC 0 OUT "^vecadd: vector add[^\n]*\n +erratum vecadd.b1 .*b\\[1\\]" ARGS ladders vecadd --lessons)
expect(RC 0 OUT "bound there: 345.6 GFLOP/s on G80" ARGS ladders gemm --lessons)
# Seed 001's K40 figure on the 512-thread rung, seed 004's on its 128-thread row.
expect(RC 0 OUT "measured there: 15.72 GiB/s on K40\n.*interleaved_128: .*measured there: 2.083 GB/s on seed 004 GPU" ARGS ladders reduce --lessons)
expect(RC 0 OUT "erratum reduce.reduce7_assigns.*erratum reduce.cascade_unguarded" ARGS errata reduce --rung cascade)
expect(RC 0 OUT "erratum vecadd.b1 .*the whole ladder" ARGS show vecadd grid)
expect(RC 0 OUT "^no errata about transpose, rung tiled" ARGS errata transpose --rung tiled)
expect(RC 2 ERR "no ladder or probe named 'nosuch'" ARGS errata nosuch)
expect(RC 2 ERR "the reduce ladder has no rung 'nosuch'" ARGS errata reduce --rung nosuch)
expect(RC 2 ERR "--rung needs a ladder" ARGS errata --rung cascade)
expect(RC 2 ERR "--rung needs a rung id" ARGS errata reduce --rung)

# probe: bad usage is exit 2; a probe with no form on the backend is exit 1.
expect(RC 0 OUT "coalescing: .*runs on: .*--size: " ARGS probe list)
expect(RC 2 ERR "name a probe, 'all' or 'list'" ARGS probe)
expect(RC 2 ERR "no probe named 'nosuchprobe'" ARGS probe nosuchprobe)
expect(RC 2 ERR "one probe at a time" ARGS probe banks atomics)
expect(RC 2 ERR "--size needs one size" ARGS probe coalescing --size 0)
expect(RC 2 ERR "--repeat needs a count" ARGS probe coalescing --repeat 0)
expect(RC 1 ERR "coalescing has no cpu form" ARGS probe coalescing --backend cpu --quiet)
expect(RC 1 ERR "no probe has a form on the cpu backend" ARGS probe all --backend cpu --quiet)
# A probe run writes JSON that parses, every point ok or skipped, with its
# conclusion; where no backend has a probe form (no OpenCL device), says so.
set(json "${WORK_DIR}/cli_test_probe.json")
file(REMOVE "${json}")
execute_process(COMMAND ${WARPLAB} probe unroll --size 1000 --repeat 2 --quiet --json ${json}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 300)
if(rc EQUAL 1 AND err MATCHES "no cpu form")
  message(STATUS "note: no backend here has a probe form; probe JSON not checked")
elseif(NOT rc EQUAL 0 OR NOT EXISTS "${json}" OR NOT out MATCHES "=> against the rolled loop")
  message(SEND_ERROR "warplab probe unroll --json: exit ${rc}\n${out}${err}")
  math(EXPR failures "${failures} + 1")
else()
  file(READ "${json}" text)
  string(JSON points ERROR_VARIABLE error LENGTH "${text}" probes 0 sections 0 points)
  string(JSON conclusion ERROR_VARIABLE error2 GET "${text}" probes 0 conclusion)
  if(error OR error2 OR points LESS 4 OR NOT conclusion MATCHES "pragma unroll [0-9.]+x")
    message(SEND_ERROR "${json}: ${error} ${error2} (${points} points; '${conclusion}')")
    math(EXPR failures "${failures} + 1")
  else()
    math(EXPR last "${points} - 1")
    foreach(i RANGE ${last})
      string(JSON state GET "${text}" probes 0 sections 0 points ${i} state)
      if(NOT state MATCHES "^(ok|skipped)$")
        message(SEND_ERROR "${json}: point ${i} is ${state}")
        math(EXPR failures "${failures} + 1")
      endif()
    endforeach()
    message(STATUS "ok: ${json} parses, ${points} points")
  endif()
endif()

# bench: bad usage is exit 2 with a clear message, a good run writes JSON.
expect(RC 2 ERR "size 'banana'" ARGS bench --backend cpu --size banana --quiet)
expect(RC 2 ERR "size 'banana'" ARGS bench --size banana --quiet)
expect(RC 2 ERR "no ladder named 'nosuchladder'" ARGS bench nosuchladder --backend cpu --quiet)
expect(RC 2 ERR "no rung 'nosuchrung'" ARGS bench vecadd --backend cpu --rung nosuchrung --quiet)
expect(RC 2 ERR "--repeat needs a count" ARGS bench --repeat 0)
expect(RC 2 ERR "--repeat needs a count from 1 to 2147483647" ARGS bench --repeat 99999999999999)
# bench api needs CUB and cuBLAS: elsewhere it says so and exits 0.
expect(RC 0 OUT "bench api: skipped: .*cuda backend" ARGS bench api --backend cpu --quiet)
expect(RC 2 ERR "leave out --sweep" ARGS bench api --sweep --backend cpu --quiet)
# bench gemm --grid: every bad option is one message and exit 2, before
# anything runs; without the cuda backend it says it was skipped.
expect(RC 0 OUT "--grid .*--candidate NAME" ARGS bench --help)
expect(RC 0 OUT "grid: skipped: .*cuda backend" ARGS bench gemm --grid --backend cpu --quiet)
expect(RC 2 ERR "--seed needs a number, not 'abc'" ARGS bench gemm --grid --seed abc)
expect(RC 2 ERR "--seed needs a number, not '-3'" ARGS bench gemm --grid --seed -3)
expect(RC 2 ERR "--seed needs a number, not '99999999999999999999'"
       ARGS bench gemm --grid --seed 99999999999999999999)
expect(RC 2 ERR "--seed with --grid needs a number from 1 .*not 0" ARGS bench gemm --grid --seed 0)
expect(RC 2 ERR "--seed with --batched needs a number from 1 .*not 0"
       ARGS bench gemm --batched --seed 0)
expect(RC 2 ERR "no GEMM planner candidate 'nosuch' \\(gemv_k, .*tiled\\)"
       ARGS bench gemm --grid --candidate nosuch)
expect(RC 2 ERR "--candidate needs a value, not ''" ARGS bench gemm --grid --candidate=)
expect(RC 2 ERR "--candidate needs --grid" ARGS bench gemm --candidate gemv_k)
expect(RC 2 ERR "--grid is the gemm ladder's" ARGS bench reduce --grid)
expect(RC 2 ERR "--grid is the gemm ladder's" ARGS bench --grid)
expect(RC 2 ERR "leave out --size" ARGS bench gemm --grid --size 64)
expect(RC 2 ERR "leave out --csv" ARGS bench gemm --grid --csv)
expect(RC 2 ERR "--type with --grid takes a comma-separated list.*not 'bf16,int8'"
       ARGS bench gemm --grid --type bf16,int8)
expect(RC 2 ERR "--type with --grid takes .*not 'bf16,'" ARGS bench gemm --grid --type bf16,)
expect(RC 0 OUT "grid: skipped: .*cuda backend" ARGS bench gemm --grid --type bf16,fp16 --backend cpu --quiet)
expect(RC 2 ERR "unknown backend 'gpu'" ARGS bench --backend gpu)
set(json "${WORK_DIR}/cli_test_bench.json")
file(REMOVE "${json}")
expect(RC 0 OUT "cpu_loop" ARGS bench vecadd --backend cpu --size 1000 --json ${json} --quiet
                                --repeat 3)
if(NOT EXISTS "${json}")
  message(SEND_ERROR "bench --json did not write ${json}")
  math(EXPR failures "${failures} + 1")
else()
  file(READ "${json}" text)
  string(JSON rows ERROR_VARIABLE error LENGTH "${text}" rows)
  if(error OR rows LESS 2)
    message(SEND_ERROR "${json}: ${error} (${rows} rows)")
    math(EXPR failures "${failures} + 1")
  else()
    math(EXPR last "${rows} - 1")
    foreach(i RANGE ${last})
      string(JSON state GET "${text}" rows ${i} state)
      string(JSON rung GET "${text}" rows ${i} rung)
      if(NOT state MATCHES "^(ok|skipped)$")
        message(SEND_ERROR "${json}: row ${rung} is ${state}")
        math(EXPR failures "${failures} + 1")
      endif()
    endforeach()
    message(STATUS "ok: ${json} parses, ${rows} rows")
  endif()
endif()

# Bad input of every kind (issue 13), on cpu and, where a device is present,
# opencl: a clear message and the documented exit status, never a signal;
# usage errors before the banner (nothing on stdout).
set(backends cpu)
execute_process(COMMAND ${WARPLAB} devices --backend opencl RESULT_VARIABLE rc
                OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc EQUAL 0 AND out MATCHES "opencl device 0")
  list(APPEND backends opencl)
else()
  message(STATUS "note: no OpenCL device; the bad-input cases run on cpu only")
endif()
foreach(backend IN LISTS backends)
  set(b --backend ${backend} --quiet)
  expect(RC 2 OUT "^$" ERR "size '2\\^62' is out of range: vecadd .*more than 2\\^64 bytes"
         ARGS bench vecadd --size 2^62 ${b})
  expect(RC 2 OUT "^$" ERR "size '2\\^63' is out of range" ARGS bench reduce --size 2^63 ${b})
  expect(RC 2 OUT "^$" ERR "size '2\\^61' is out of range"
         ARGS bench reduce --type double --size 2^61 ${b})
  expect(RC 2 OUT "^$" ERR "size '2\\^62' is out of range"
         ARGS bench vecadd --size 2^62 --rung grid ${b})
  expect(RC 2 OUT "^$" ERR "out of range" ARGS bench --size 2^62 ${b})
  expect(RC 2 OUT "^$" ERR "size '0' is out of range: every dimension is 1 or more"
         ARGS bench vecadd --size 0 ${b})
  expect(RC 2 OUT "^$" ERR "size '0x5' is out of range" ARGS bench transpose --size 0x5 ${b})
  expect(RC 2 OUT "^$" ERR "--size needs sizes, not ''" ARGS bench vecadd --size= ${b})
  expect(RC 2 OUT "^$" ERR "none empty" ARGS bench vecadd --size 1000,,2000 ${b})
  expect(RC 2 OUT "^$" ERR "size 'banana'" ARGS bench vecadd --size banana ${b})
  expect(RC 2 OUT "^$" ERR "too large to address" ARGS bench transpose --size 2^40x2^40 ${b})
  # Sizes that can be counted but do not fit: every rung skipped, with the
  # reason, and the run is not a success.
  expect(RC 1 OUT "skipped: needs [0-9.]+ GB" ERR "nothing ran: every rung was skipped"
         ARGS bench transpose --size 1000000000x1000000000 ${b})
  expect(RC 1 OUT "skipped: needs [0-9.]+ GB" ERR "nothing ran"
         ARGS bench vecadd --size 2^40 --rung grid,cpu_loop ${b})
  # Output files are checked before the run: a path that cannot be written
  # is refused (exit 1); tests/output/output_nodes.sh covers every kind of node.
  expect(RC 1 OUT "^$" ERR "--json ${WORK_DIR}/no/such/dir/r.json: cannot write there: No such file"
         ARGS bench vecadd --size 1000 --json ${WORK_DIR}/no/such/dir/r.json ${b})
  expect(RC 2 OUT "^$" ERR "--plot ${WORK_DIR}: is a directory"
         ARGS bench vecadd --size 1000 --plot ${WORK_DIR} ${b})
endforeach()
expect(RC 2 ERR "--block '65536x65536': 4294967296 threads in one block; a block holds 1 to 1024"
       ARGS occupancy --arch hopper --block 65536x65536)
expect(RC 2 ERR "--block '70000x1': each dimension is 1 to 65536"
       ARGS occupancy --arch hopper --block 70000x1)
expect(RC 1 OUT "^$" ERR "--json ${WORK_DIR}/no/such/dir/p.json: cannot write there"
       ARGS probe unroll --json ${WORK_DIR}/no/such/dir/p.json)

# shell(RC <code> [ERR <regex>] SCRIPT <sh script>): cases that need a shell
# (limits, redirections, environment); W is the tool. No ';' in a script (a
# CMake list separator).
function(shell)
  cmake_parse_arguments(E "" "RC;ERR;SCRIPT" "" ${ARGN})
  execute_process(COMMAND sh -c "W='${WARPLAB}'; ${E_SCRIPT}" RESULT_VARIABLE rc
                  OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 300)
  if(NOT rc STREQUAL E_RC OR (DEFINED E_ERR AND NOT err MATCHES "${E_ERR}"))
    message(SEND_ERROR "sh -c '${E_SCRIPT}': exit ${rc}, expected ${E_RC} and /${E_ERR}/\n"
                       "--- stdout:\n${out}\n--- stderr:\n${err}")
    math(EXPR count "${failures} + 1")
    set(failures ${count} PARENT_SCOPE)
  else()
    message(STATUS "ok: ${E_SCRIPT} -> ${rc}")
  endif()
endfunction()

# stdout that cannot be written is a failure, for every command.
shell(RC 1 ERR "writing to standard output failed"
      SCRIPT "\"$W\" bench vecadd --backend cpu --size 1000 --repeat 2 --quiet >/dev/full")
shell(RC 1 ERR "writing to standard output failed: No space left on device"
      SCRIPT "\"$W\" ladders >/dev/full")
shell(RC 1 ERR "writing to standard output failed" SCRIPT "\"$W\" --help >/dev/full")
# A write that fails (here: past the file-size limit, as on a full disk)
# reports the errno and leaves no file, not a truncated one.
set(json "${WORK_DIR}/cli_test_limited.json")
file(REMOVE "${json}")
shell(RC 1 ERR "writing ${json} failed: write: File too large"
      SCRIPT "ulimit -f 1 && exec \"$W\" bench vecadd --backend cpu --size 1000 --repeat 2 --quiet --json '${json}' >/dev/null")
file(GLOB left "${WORK_DIR}/cli_test_limited.json*")
if(left)
  message(SEND_ERROR "a failed --json write left ${left}")
  math(EXPR failures "${failures} + 1")
endif()
# A memory cgroup of 1 GiB (a fake cgroup tree; v1 and v2 files at its
# root): a problem whose buffers and host copies need more is skipped with
# the reason, not OOM-killed.
set(cgroup "${WORK_DIR}/cli_test_cgroup")
file(REMOVE_RECURSE "${cgroup}")
file(WRITE "${cgroup}/memory.max" "1073741824\n")
file(WRITE "${cgroup}/memory.current" "0\n")
file(WRITE "${cgroup}/memory/memory.limit_in_bytes" "1073741824\n")
file(WRITE "${cgroup}/memory/memory.usage_in_bytes" "0\n")
foreach(backend IN LISTS backends)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env WARPLAB_CGROUP_ROOT=${cgroup} ${WARPLAB}
                          bench vecadd --backend ${backend} --size 2^26 --rung cpu_loop,grid
                          --quiet
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 300)
  if(NOT rc EQUAL 1 OR NOT err MATCHES "nothing ran"
     OR NOT out MATCHES "cpu_loop +[^\n]*skipped: needs [0-9.]+ GB of [a-z]+ memory, 1.07 GB free"
     OR (backend STREQUAL "opencl" AND NOT out MATCHES "grid +[^\n]*skipped: needs [0-9.]+ GB"))
    message(SEND_ERROR "bench in a 1 GiB cgroup (${backend}): exit ${rc}\n${out}${err}")
    math(EXPR failures "${failures} + 1")
  else()
    message(STATUS "ok: bench vecadd --size 2^26 in a 1 GiB cgroup (${backend}): skipped")
  endif()
endforeach()
# Ctrl-C: the finished rows are printed and written (JSON marked
# incomplete), exit 130.
set(json "${WORK_DIR}/cli_test_interrupted.json")
file(REMOVE "${json}")
execute_process(COMMAND timeout --preserve-status -s INT 3 ${WARPLAB} bench --backend cpu
                        --quiet --json ${json}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 120)
set(problem "")
if(NOT rc EQUAL 130 OR NOT err MATCHES "interrupted: [0-9]+ rows? finished" OR NOT EXISTS "${json}")
  set(problem "exit ${rc}")
else()
  file(READ "${json}" text)
  string(JSON incomplete ERROR_VARIABLE error GET "${text}" incomplete)
  string(JSON rows ERROR_VARIABLE error2 LENGTH "${text}" rows)
  if(error OR error2 OR NOT incomplete STREQUAL "ON" OR rows LESS 1 OR NOT out MATCHES "cpu_loop")
    set(problem "JSON: ${error} ${error2} incomplete=${incomplete}, ${rows} rows")
  endif()
endif()
if(problem)
  message(SEND_ERROR "bench interrupted by SIGINT: ${problem}\n${out}${err}")
  math(EXPR failures "${failures} + 1")
else()
  message(STATUS "ok: SIGINT -> 130, ${rows} rows in ${json}, marked incomplete")
endif()
# SIGTERM (a job scheduler's timeout) stops bench the same way: exit 143.
# probe cannot stop early: killed, it leaves no temporary file behind.
set(json "${WORK_DIR}/cli_test_terminated.json")
file(REMOVE "${json}")
execute_process(COMMAND timeout --preserve-status -s TERM 3 ${WARPLAB} bench --backend cpu
                        --quiet --json ${json}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 120)
if(NOT rc EQUAL 143 OR NOT err MATCHES "interrupted" OR NOT EXISTS "${json}")
  message(SEND_ERROR "bench terminated by SIGTERM: exit ${rc}\n${out}${err}")
  math(EXPR failures "${failures} + 1")
endif()
# The same signal twice at once (`timeout` signals the command, then its
# process group) is one request: still a graceful stop.
set(json "${WORK_DIR}/cli_test_terminated_twice.json")
file(REMOVE "${json}")
execute_process(COMMAND sh -c "\"$0\" bench --backend cpu --quiet --json \"$1\" & p=$!; sleep 3; kill -TERM $p; kill -TERM $p; wait $p"
                        ${WARPLAB} ${json}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 120)
if(NOT rc EQUAL 143 OR NOT err MATCHES "interrupted" OR NOT EXISTS "${json}")
  message(SEND_ERROR "bench sent SIGTERM twice at once: exit ${rc}\n${out}${err}")
  math(EXPR failures "${failures} + 1")
else()
  message(STATUS "ok: SIGTERM twice at once -> 143, rows written")
endif()
set(json "${WORK_DIR}/cli_test_probe_killed.json")
file(GLOB left "${json}*")
file(REMOVE "${json}" ${left})
execute_process(COMMAND timeout -s TERM 1 ${WARPLAB} probe all --quiet --json ${json}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 120)
file(GLOB left "${json}*")
if(left)
  message(SEND_ERROR "a probe killed by SIGTERM left ${left} (exit ${rc})\n${out}${err}")
  math(EXPR failures "${failures} + 1")
endif()

# The seed is written as a string, exactly: JSON readers round numbers.
set(json "${WORK_DIR}/cli_test_seed.json")
expect(RC 0 ARGS bench vecadd --backend cpu --size 1000 --rung cpu_loop --repeat 2 --quiet
                 --seed 18446744073709551557 --json ${json})
file(READ "${json}" text)
string(JSON seed_type ERROR_VARIABLE error TYPE "${text}" seed)
string(JSON seed ERROR_VARIABLE error2 GET "${text}" seed)
if(NOT seed_type STREQUAL "STRING" OR NOT seed STREQUAL "18446744073709551557")
  message(SEND_ERROR "${json}: seed is ${seed_type} '${seed}' ${error} ${error2}")
  math(EXPR failures "${failures} + 1")
endif()

# devices and ladders.
expect(RC 0 OUT "cpu device 0" ARGS devices)
expect(RC 0 OUT "cpu device 0" ARGS devices --backend cpu)
expect(RC 2 ERR "unknown backend 'gpu'" ARGS devices --backend gpu)
expect(RC 0 OUT "vecadd: vector add" ARGS ladders)
expect(RC 0 OUT "cpu_loop: CPU loop, one core \\[host\\]\n +The course's host loop"
       ARGS ladders vecadd --lessons)
expect(RC 0 OUT "see: seed 001" ARGS ladders --lessons)
expect(RC 2 ERR "no ladder named 'nope'" ARGS ladders nope)
expect(RC 2 ERR "unknown option '--frob'" ARGS ladders --frob)

# show: a rung's lesson, course figure, code and diff; the whole ladder; errors.
expect(RC 0 OUT "reduce / sequential: .*lesson: .*course: seed 001.*== C \\(cpu backend\\) ==|reduce / sequential: .*lesson: .*course: seed 001.*== (CUDA|OpenCL) C =="
       ARGS show reduce sequential)
expect(RC 0 OUT "--- reduce/strided_index \\((CUDA|OpenCL) C\\)\n\\+\\+\\+ reduce/sequential"
       ARGS show reduce sequential)
expect(RC 0 OUT "transpose / padded: .*transpose / persistent: " ARGS show transpose)
# A cuda rung of reduce is a file of its own: shown whole, once (one "// path"
# line, the file's first), then the diff against the rung below's file.
execute_process(COMMAND ${WARPLAB} show reduce sequential --backend cuda RESULT_VARIABLE rc
                OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 300)
if(NOT rc EQUAL 0 AND err MATCHES "cuda backend is not compiled into this build")
  message(STATUS "note: no cuda backend in this build; its rung files not shown")
else()
  string(REGEX MATCHALL "\n// [^\n]*" headers "${out}")
  list(LENGTH headers shown)
  if(NOT rc EQUAL 0 OR NOT shown EQUAL 1
     OR NOT headers STREQUAL "\n// src/ladders/reduce/cuda/08_sequential.cu:1"
     OR NOT out MATCHES "08_sequential.cu:1\n/\\* Rung sequential.*\n  -- diff against the rung below, strided_index --\n--- reduce/strided_index \\(CUDA C\\)\n\\+\\+\\+ reduce/sequential \\(CUDA C\\)\n@@ [^\n]*\n-// src/ladders/reduce/cuda/06_strided_index.cu\n.*\n\\+// src/ladders/reduce/cuda/08_sequential.cu\n")
    message(SEND_ERROR "warplab show reduce sequential --backend cuda: exit ${rc}, ${shown} files shown "
                       "(${headers}), or not the file then its diff:\n${out}\n${err}")
    math(EXPR failures "${failures} + 1")
  else()
    message(STATUS "ok: warplab show reduce sequential --backend cuda: one file and its diff")
  endif()
endif()
expect(RC 0 OUT "== C \\(cpu backend\\) ==.*--- vecadd/cpu_loop \\(C \\(cpu backend\\)\\)"
       ARGS show vecadd cpu_threads --backend cpu)
expect(RC 2 ERR "which ladder" ARGS show)
expect(RC 2 ERR "no ladder named 'nope'" ARGS show nope)
expect(RC 2 ERR "has no rung 'nope'" ARGS show reduce nope)
expect(RC 2 ERR "unknown backend 'gpu'" ARGS show reduce --backend gpu)
expect(RC 2 ERR "one ladder and at most one rung" ARGS show reduce naive sequential)
# --counters without a GPU or without ncu: a clear message and the plain table.
expect(RC 0 OUT "cpu_loop" ERR "--counters: .*the plain one"
       ARGS bench vecadd --backend cpu --size 1000 --repeat 2 --quiet --counters)
expect(RC 1 ERR "--html" ARGS bench vecadd --backend cpu --html /nonexistent-dir/x.html)

# occupancy: the course's Fermi numbers, a register-bound Hopper block, errors.
expect(RC 0 OUT "6 blocks per SM: 48 warps, 1536 threads; occupancy 100.0%"
       ARGS occupancy --arch fermi --threads 256)
expect(RC 0 OUT "8 blocks per SM: 16 warps, 512 threads.*Blocks bind"
       ARGS occupancy --arch fermi --block 8x8)
expect(RC 0 OUT "1 block per SM: 32 warps, 1024 threads; occupancy 66.7%"
       ARGS occupancy --arch fermi --block 32x32)
expect(RC 0 OUT "8x8 +64 +2 +8 +16 +512 +33.3%  blocks\n.*16x16 +256 +8 +6 +48 +1536 +100.0%  threads\n.*32x32 +1024 +32 +1 +32 +1024 +66.7%  threads"
       ARGS occupancy --arch fermi --table)
expect(RC 0 OUT "registers +65536 +65536 +1  <- binds.*occupancy 12.5%"
       ARGS occupancy --arch hopper --threads 256 --registers 255)
expect(RC 0 OUT "shared memory +16 KiB +2 KiB +8\n"
       ARGS occupancy --arch fermi --sm-shared 16K --block 16x16 --shared 2K)
expect(RC 0 OUT "Hopper \\(sm_90\\)" ARGS occupancy --list-archs)
expect(RC 2 ERR "no architecture named 'nope'" ARGS occupancy --arch nope --threads 32)
expect(RC 2 ERR "1 to 1024 threads" ARGS occupancy --arch hopper --threads 2048)
expect(RC 2 ERR "allows 0 to 255" ARGS occupancy --arch hopper --threads 256 --registers 256)
expect(RC 2 ERR "--shared needs bytes" ARGS occupancy --arch hopper --threads 256 --shared lots)
expect(RC 2 ERR "give the block size" ARGS occupancy --arch hopper)
expect(RC 2 ERR "--arch or --device, not both" ARGS occupancy --arch hopper --device --threads 32)
# Option mistakes: one message each; an empty value is refused wherever it
# comes (--rung "" as --size=); an output or format given twice is refused.
expect(RC 2 OUT "^$" ERR "^warplab bench: --size needs a value\n\\(see: warplab bench --help\\)\n$"
       ARGS bench --size)
expect(RC 2 OUT "^$" ERR "^warplab bench: unknown option '--frob'\n" ARGS bench --frob)
expect(RC 2 OUT "^$" ERR "--rung needs a value, not ''" ARGS bench vecadd --rung= --size 10)
expect(RC 2 OUT "^$" ERR "--size needs sizes, not ''" ARGS bench vecadd --size=)
expect(RC 2 OUT "^$" ERR "--type needs a value, not ''" ARGS bench reduce --type=)
expect(RC 2 OUT "^$" ERR "--json given twice \\('a.json' and 'b.json'\\)"
       ARGS bench vecadd --json a.json --json b.json)
expect(RC 2 OUT "^$" ERR "--html given twice" ARGS bench vecadd --html a.html --html=b.html)
expect(RC 2 OUT "^$" ERR "one output format" ARGS bench vecadd --csv --markdown)
expect(RC 2 OUT "^$" ERR "one output format" ARGS bench vecadd --csv --csv)
expect(RC 2 OUT "^$" ERR "--json given twice" ARGS probe unroll --json a.json --json b.json)
# Sizes past 2^64 - 1 are out of range, like sizes whose bytes are.
expect(RC 2 ERR "the size '2\\^64' is out of range" ARGS bench vecadd --backend cpu --size 2^64)
expect(RC 2 ERR "the size '2\\^63' is out of range" ARGS bench vecadd --backend cpu --size 2^63)
expect(RC 2 ERR "cannot read the size '12q'" ARGS bench vecadd --backend cpu --size 12q)
# A rung list without a ladder runs each ladder's listed rungs; a rung no
# ladder has is named as such; a ladder that cannot run here (allreduce
# without 2 CUDA GPUs) is no empty section.
expect(RC 0 OUT "vecadd, n=100 .*\ncpu_loop .*reduce, n=100 .*\ncpu_loop "
       ARGS bench --backend cpu --rung cpu_loop --size 100 --repeat 2 --quiet)
expect(RC 2 ERR "no ladder has a rung 'nosuch'" ARGS bench --backend cpu --rung nosuch --size 100)
execute_process(COMMAND ${WARPLAB} bench --backend cpu --rung cpu_loop,host_staging --size 100
                        --repeat 2 --quiet
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 300)
if(NOT rc EQUAL 0 OR out MATCHES "allreduce" OR out MATCHES "0 GPUs")
  message(SEND_ERROR "bench --rung cpu_loop,host_staging on cpu: exit ${rc}, an allreduce "
                     "section or none of the others\n${out}${err}")
  math(EXPR failures "${failures} + 1")
endif()
expect(RC 1 ERR "the allreduce ladder: the all-reduce ladder runs across CUDA GPUs"
       ARGS bench allreduce --backend cpu --quiet)
# The rung column is as wide as the longest id in the group: the titles of
# every row start in one column.
expect(RC 0 OUT "\nrung                 what .*\ncpu_loop             CPU triple loop.*\ntf32_wgmma_tma_store tensor cores"
       ARGS bench gemm --backend cpu --size 64 --rung cpu_loop,tf32_wgmma_tma_store --repeat 2 --quiet)

shell(RC 2 ERR "--rung needs a value, not ''"
      SCRIPT "exec \"$W\" bench vecadd --rung '' --size 10 >/dev/null")

# Bounded runs: the cpu backend's ex rows have the host rows' size guard
# (skipped at once, not minutes of loops); a problem too large for memory
# is skipped without a budget probe.
expect(RC 1 OUT "ex_tf32 .*skipped: the cpu backend's plain loops would take minutes"
       ARGS bench gemm --backend cpu --size 20000 --rung ex_tf32,ex_bf16 --quiet)
string(TIMESTAMP before "%s")
expect(RC 1 OUT "cpu_loop .*skipped: needs [0-9.]+ GB"
       ARGS bench transpose --size 200000x200000 --rung cpu_loop,cpu_blocked --quiet)
string(TIMESTAMP after "%s")
math(EXPR took "${after} - ${before}")
if(took GREATER 20)
  message(SEND_ERROR "bench transpose --size 200000x200000 took ${took} s to skip its rows")
  math(EXPR failures "${failures} + 1")
endif()

# Without --arch: the present CUDA GPU, or a usage error that asks for --arch.
execute_process(COMMAND ${WARPLAB} occupancy --threads 256 RESULT_VARIABLE rc
                OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT ((rc EQUAL 0 AND out MATCHES "blocks per SM") OR (rc EQUAL 2 AND err MATCHES "--arch")))
  message(SEND_ERROR "warplab occupancy --threads 256: exit ${rc}\n${out}${err}")
  math(EXPR failures "${failures} + 1")
endif()

if(failures GREATER 0)
  message(FATAL_ERROR "${failures} command-line check(s) failed")
endif()
