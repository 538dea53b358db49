/* The course's errata, as data (docs/COURSE.md, "Errata").
 *
 * Each entry is one bug, wrong figure, unit or label in the course's five
 * documents (../shared/seeds/) that a ladder or probe meets: what the course
 * wrote, quoted verbatim (only its runs of whitespace may differ), why it is
 * wrong, and what warplab runs or says instead. The ladders' lessons, `warplab
 * show`, the HTML handout and the JSON report show the entries of their rung;
 * `warplab errata` lists them all. tests/unit/test_errata.c checks that every
 * quote is in its seed, that every topic and rung exists and that ids are
 * unique.
 *
 * Kept in one table, keyed by ladder (or probe) and rung, so that the list a
 * learner reads is the list the test checks. */
#include "../internal.h"

#include "warplab_lab.h"
#include <stdio.h>
#include <string.h>

static const warplab_erratum errata[] = {
    /* ---- vector add (seed 001) ---------------------------------------- */
    {"vecadd.b1", "vecadd", "", "001", "'CPU - Vector Add', 'GPU / CUDA - Vector Add'",
     "c[i] = a[i] + b[1];",
     "All three of the course's vector adds (CPU, one block, many blocks) add b[1], the second "
     "element of b, to every a[i]: the sum is wrong for every i but 1, and a test that fills b "
     "with one value cannot see it.",
     "c[i] = a[i] + b[i], checked element by element against a double-precision sum of random a "
     "and b."},
    {"vecadd.int_overflow", "vecadd", "grid", "001",
     "'GPU / CUDA - Vector Add - Defining block size and number of blocks'", "int N = 1 << 32;",
     "1 << 32 does not fit a 32-bit int (undefined behaviour; in practice N = 0, so nothing is "
     "added), and N*sizeof(float) in int arithmetic overflows long before that.",
     "Sizes are 64-bit (size_t) and every element and byte count is checked for overflow before "
     "anything is allocated; --size 2^32 is taken where the memory allows it."},
    {"vecadd.no_bound_check", "vecadd", "grid", "001",
     "'GPU / CUDA - Vector Add - Defining block size and number of blocks'",
     "int number_of_blocks = (int)ceil(float(N) / thread_block_size) ;",
     "The grid is rounded up to whole 1024-thread blocks, but the kernel has no if (i < N): when "
     "N is not a multiple of 1024 the last block reads and writes past the arrays. float(N) also "
     "rounds N above 2^24 (N = 2^24 + 1 gets 16384 blocks, one element short).",
     "The grid rung computes the block count in integers and guards i < n; it is tested at odd "
     "sizes on exact-size buffers with guard zones."},
    {"vecadd.missing_semicolon", "vecadd", "one_block", "001", "'GPU / CUDA - Vector Add'",
     "int i = blockIdx.x * blockDim.x + threadIdx.x c[i] = a[i] + b[1];",
     "The statement that computes i has no semicolon: the kernel does not compile.",
     "The one-block kernel as the course meant it, compiled and verified."},
    {"vecadd.managed_no_sync", "vecadd", "managed", "001", "'GPU / CUDA - Vector Add'",
     "// do something with c cudaFree(a); cudaFree(b); cudaFree(c);",
     "A kernel launch returns before the kernel runs. Reading managed c on the host right after "
     "the launch, with no cudaDeviceSynchronize(), races with the kernel (and on GPUs before "
     "Pascal it faults).",
     "The managed rungs synchronise before the host touches c."},
    /* ---- reduction (seeds 001, 003, 004) ------------------------------- */
    {"reduce.max_threads", "reduce", "", "001", "'Parallel reduction 3'",
     "(MAX. threads per block 2048)",
     "A block holds at most 1024 threads on every NVIDIA GPU since Fermi (512 before). 2048 is "
     "the number of threads an SM keeps resident, shared by several blocks.",
     "Block sizes of at most 1024; the occupancy tables read the limits from the device."},
    {"reduce.warps_sync", "reduce", "", "001", "'Parallel reduction 4'",
     "only *warps* can be synchronized inside a *thread block*",
     "__syncthreads() synchronises a whole block, as the course's own kernels use it. What a "
     "kernel cannot synchronise (without cooperative launch) is the grid.",
     "The reduce rungs put __syncthreads() between a block's steps and a kernel launch "
     "between levels, the grid's only barrier (the one-pass rung counts finished blocks with "
     "an atomic instead)."},
    {"reduce.compute_bound", "reduce", "", "001", "'Parallel reduction 7'",
     "Parallel reduction is a *compute bound kernel*",
     "One add per 4-byte element loaded is 0.25 flop per byte, far below any GPU's balance (the "
     "K40 on the same slide: 4.29 TFLOP/s / 240 GB/s = 18 flop per byte). Reduction is "
     "bandwidth-bound, as the slide's next line, 'Goal peak bandwidth', says.",
     "Every reduce rung is reported in GB/s against the device's copy bandwidth."},
    {"reduce.gib_labelled_gb", "reduce", "interleaved", "001", "'Parallel reduction 10'",
     "0.9941 ms 15.72 GB/s",
     "2^22 ints are 2^24 bytes: 2^24 B / 0.9941 ms = 16.88 GB/s in 10^9-byte GB, which is 15.72 "
     "GiB/s. Every bandwidth in the K40 table is GiB/s labelled GB/s.",
     "warplab's GB/s are 10^9 bytes a second; the K40 figures are shown as printed and labelled "
     "GiB/s."},
    {"reduce.speedups_shifted", "reduce", "sequential", "001", "'Parallel reduction 24'",
     "Sequential Addressing 0.2588 ms 60.38 GB/s 1.00 1.61",
     "The speedup columns slip a row from here down: sequential addressing's own speedups are "
     "0.6215/0.2588 = 2.40 and 0.9941/0.2588 = 3.84 (printed on the next row as 2.39 and 3.84), "
     "and First Add During Load's 1.35 and 5.19 are printed on Loop Unroll's row.",
     "Each row's step and cumulative speedups are computed from the times measured in the same "
     "run."},
    {"reduce.loop_unroll_repeated", "reduce", "warp_volatile", "001", "'Parallel reduction 28'",
     "Loop Unroll 0.1915 ms 81.59 GB/s 1.35 5.19",
     "The Loop Unroll row repeats First Add During Load's time and bandwidth (0.1915 ms, 81.59 "
     "GB/s): the course has no measurement of the unrolled last warp, and Static Unroll's step "
     "speedup of 1.09 is taken against the repeated time.",
     "The unrolled last warp is measured (warp_volatile, and warp_syncwarp made correct); the "
     "course figure beside it is the repeated 81.59."},
    {"reduce.simd_synchronous", "reduce", "warp_volatile", "004", "'Unrolling the last warp'",
     "Recall that instructions are SIMD synchronous within a warp",
     "Since Volta a warp's threads are scheduled independently: without __syncwarp() the "
     "unrolled last warp is a data race, volatile or not.",
     "warp_volatile runs the course's form as an unsafe rung (racecheck reports the race); "
     "warp_syncwarp adds __syncwarp() between the steps."},
    {"reduce.missing_volatile", "reduce", "complete_unroll", "004", "'Attempt #5', 'Attempt #6'",
     "if (blockSize >= 64) sdata[tid] += sdata[tid + 32];",
     "Attempts #5 to #7 unroll the last warp on a plain (not volatile) shared array: the compiler "
     "may keep sdata[tid] in a register between the steps, and the other lanes never see the "
     "partial sums. Seed 001's warpReduce has the volatile these lack.",
     "complete_unroll keeps each thread's partial sum in a register and separates the last "
     "warp's steps with __syncwarp() (as warp_syncwarp does)."},
    {"reduce.reduce7_assigns", "reduce", "cascade", "004", "'Final optimized reduction kernel'",
     "while (i < n) { sdata[tid] = g_idata[i] + g_data[i+blockSize]; i += gridSize; }",
     "= should be +=: each thread keeps only its last pair and drops every earlier element of "
     "its stride. g_data is undeclared (g_idata is meant), and the tree steps read sdata[tid + "
     "s] where no s exists (256, 128 and 64 are meant).",
     "cascade accumulates over its grid-stride loop in a register, then reduces the tree with "
     "fixed offsets."},
    {"reduce.cascade_unguarded", "reduce", "cascade", "004",
     "'Attempt #7: Multiple adds per thread'", "sdata[tid] += g_idata[i] + g_data[i+blockSize];",
     "The loop tests i < n but also reads i + blockSize: when n is not a multiple of "
     "2 x blockSize x gridDim, the last trip reads past the array. Seed 003's 'Implementace 7' "
     "has the same unguarded load.",
     "cascade guards its second load; it is tested at odd sizes on exact-size buffers."},
    {"reduce.block_reduce_partial_warp", "reduce", "shuffle", "004", "'Block reduce'",
     "val = (threadIdx.x < blockDim.x / warpSize) ? shared[lane] : 0;",
     "blockDim.x / warpSize rounds down: in a block whose size is not a multiple of 32, the last "
     "(partial) warp wrote its sum to shared memory but it is never read.",
     "warplab's block reduce runs whole warps only: every block size it launches is a multiple "
     "of 32, a contract its comment states."},
    {"reduce.float_accumulator", "reduce", "warp_volatile", "003", "'Implementace 5'",
     "float mySum = 0;",
     "The kernel sums int data through a float, which loses the low bits of sums past 2^24; and "
     "mySum starts at 0, not at sv[tid], so the first 'sv[tid] = mySum = mySum + sv[tid + s]' "
     "drops each thread's own element.",
     "The unrolled rungs accumulate in the element's own type, starting from the thread's own "
     "loaded value."},
    {"reduce.melem", "reduce", "interleaved", "003", "'Vysoká úroveň divergence'",
     "3.77 GB/s, 0.94 MElem/s",
     "3.77 GB/s of 4-byte ints is 0.94 G elements a second, not M: every MElem/s figure of the "
     "reduction slides is GElem/s.",
     "Rates are GB/s (10^9 bytes a second) beside the course's GB/s."},
    /* ---- shared-memory banks and caches (seeds 001, 003, 004) ---------- */
    {"banks.half_warp", "banks", "", "004", "'New problem: bank conflicts'",
     "BC = threads in half-warp access different 32-bit words from same bank",
     "True of compute capability 1.x (16 banks serving a half-warp). Since Fermi, 32 banks "
     "serve a whole warp.",
     "The banks probe measures shared-memory bandwidth against stride on the present GPU, per "
     "warp."},
    {"banks.since_cc3", "banks", "", "001", "'Parallel reduction 17'", "Since compute 3.0",
     "Shared memory has had 32 banks since compute capability 2.0 (Fermi), not 3.0.",
     "The banks probe measures the present GPU."},
    {"coalescing.fermi_l1_line", "coalescing", "", "003",
     "'Přístup do globální paměti u Fermi (c.c. > 2.0)'", "LI: 256 byte na řádek",
     "Fermi's L1 cache line is 128 bytes (the slide's 32-byte L2 line is right).",
     "The coalescing probe measures bandwidth against offset and stride on the present GPU, whose "
     "accesses are served in 32-byte sectors of 128-byte lines."},
    {"atomics.list_repeats", "atomics", "", "002", "'Atomic Functions原子函数'",
     "atomicAdd(); atomicSub(); atomicMin(); atomicExch(); atomicMin(); atomicMax(); "
     "atomicAdd(); atomicDec(); atomicCAS();",
     "The arithmetic list names atomicAdd and atomicMin twice and leaves out atomicInc, the "
     "partner of the atomicDec it lists.",
     "The atomics probe measures add (int and float, global and shared), a block-staged add and "
     "a CAS loop; the list's other functions are named here, not yet measured."},
    /* ---- matrix multiply (seeds 000, 002) ------------------------------ */
    {"gemm.md_width", "gemm", "one_block", "002", "'matrix multiply: CUDA Kernel'",
     "float Mdelement = Md[ty * Md.width + k];",
     "Md is a float *: Md.width does not exist (the kernel's Width parameter is meant), and the "
     "same for Nd.width.",
     "The one-block kernel indexes with the matrix width it is given."},
    {"gemm.launch_passes_tile_width", "gemm", "many_blocks", "002", "'调用kernel'",
     "MatrixMulKernel<<<dimGrid, dimBlock>>>(Md, Nd, Pd, TILE_WIDTH);",
     "The launch passes TILE_WIDTH where the kernel takes the matrix Width, so every row index is "
     "computed for a TILE_WIDTH-wide matrix. The grid line above it also misspells TILE_WIDTH "
     "(TIE_WIDTH) and uses an undefined HEIGHT.",
     "The many-blocks kernel is launched with the matrix's own sizes."},
    {"gemm.one_fifteenth", "gemm", "many_blocks", "002", "'受限于global memory带宽'",
     "86.4/4=21.6GFLOPS 1/15的性能", "21.6 / 346.5 = 1/16.0, not 1/15.",
     "Fractions of a bound are computed from the figures."},
    {"gemm.ndx_nds", "gemm", "tiled16", "002", "'把kernel拆分成多个阶段'",
     "__shared__ float Ndx[TILE_WIDTH][TILE_WIDTH];",
     "The tile is declared Ndx and used as Nds: the kernel does not compile.",
     "Two tiles, Mds and Nds."},
    {"gemm.col_missing_bx", "gemm", "tiled16", "002", "'把kernel拆分成多个阶段'",
     "int Col = TILE_WIDTH + tx;",
     "bx * is missing: every block computes columns TILE_WIDTH to 2 x TILE_WIDTH - 1, so one "
     "column strip of P is written, by every block along x, and the rest never is.",
     "Col = blockIdx.x * TILE_WIDTH + threadIdx.x; the result is checked element by element."},
    {"gemm.bound_not_measured", "gemm", "tiled16", "002", "'Shared memory 瓦片化的好处'",
     "现在global memory 支持345.6GFLOPS 20*16",
     "345.6 GFLOP/s is a bound the slide computes (86.4 GB/s / 4 B = 21.6 GFLOP/s, times the 16x "
     "reuse of a 16 x 16 tile), not a measurement, and '20*16' should read 21.6*16.",
     "The figure is labelled a bound ('bound there'), beside what the rung measures today."},
    {"gemm.kepler_1025", "gemm", "tiled32", "002", "'TILE_WIDTH大小的选择'", "Kerpler - 1025",
     "Kepler's limit is 1024 threads a block.",
     "TILE_WIDTH 32 is a 1024-thread block, the limit of every GPU since Fermi."},
    {"gemm.fermi_two_blocks", "gemm", "tiled32", "000", "'Shared Memory and Threading'",
     "allowing 2 thread blocks active at the same time (Fermi SM thread count limitation!)",
     "A 32 x 32 tile is a 1024-thread block and a Fermi SM holds 1536 threads: one block fits, "
     "as the same lecture's 'Block Granularity Considerations' says. Shared memory alone (8 KB a "
     "block) would allow 2 blocks in 16 KB or 6 in 48 KB.",
     "warplab occupancy computes resident blocks from every limit and names the one that "
     "binds."},
    {"occupancy.language_level", "blocksize", "", "000", "'Lecture 2.1: Thread Scheduling'",
     "Up to 8 blocks to each SM as resource allows, This is a language level constraint.",
     "Eight resident blocks per SM is a limit of Fermi's hardware (16 on Kepler and Maxwell, 32 "
     "from Volta to Hopper), not of the CUDA language.",
     "The blocksize probe and warplab occupancy read the limit from the device."},
    /* ---- the course as a whole ----------------------------------------- */
    {"course.local_arrays", "course", "", "000", "'Lecture 2.3: CUDA Memories'",
     "Except pre-thread arrays that reside in global memory",
     "Per-thread arrays that cannot live in registers go to local memory: private to their "
     "thread, placed in device memory and cached in L1 and L2. Global memory is what every "
     "thread can see.",
     "No rung: this entry is the correction."},
    {"course.dev_prop", "course", "", "000", "'Device Query'",
     "dev_prop.dev_prop.maxThreadsPerBlock",
     "dev_prop is named twice: the field is dev_prop.maxThreadsPerBlock.",
     "warplab devices reads and prints the device's properties."},
    {"course.grid_2d", "course", "", "001", "'CUDA - Thread Hierarchical Model'",
     "Grid (2 dimensions)", "Grids have had 3 dimensions since compute capability 2.0 (Fermi).",
     "No rung: this entry is the correction."},
};

#define ERRATA_COUNT (sizeof errata / sizeof errata[0])

size_t warplab_errata_count(void)
{
    return ERRATA_COUNT;
}

const warplab_erratum *warplab_erratum_get(size_t index)
{
    return index < ERRATA_COUNT ? &errata[index] : NULL;
}

void wl_errata_ids(const char *topic, const char *rung, char *out, size_t len)
{
    if (!len)
        return;
    out[0] = '\0';
    size_t used = 0;
    for (size_t i = 0; i < ERRATA_COUNT; i++) {
        if (strcmp(errata[i].topic, topic) != 0 || strcmp(errata[i].rung, rung) != 0)
            continue;
        int n = snprintf(out + used, len - used, "%s%s", used ? " " : "", errata[i].id);
        if (n < 0 || (size_t)n >= len - used) {
            out[used] = '\0'; /* the ids that fit, whole */
            return;
        }
        used += (size_t)n;
    }
}
