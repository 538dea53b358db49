/* The matrix-multiply ladder (seeds 000 and 002): C = alpha*A*B + beta*C,
 * float32, row-major, any m, n, k.
 *
 * The course climbs from the host triple loop to a one-block kernel (limited
 * by the block size), a grid of blocks reading global memory for every
 * multiply-add (bandwidth-bound: on the G80, 21.6 of 346.5 GFLOPS
 * reachable), the tiled shared-memory kernel (global traffic cut by
 * TILE_WIDTH) and the tiled kernel with boundary checks for any size. warplab
 * keeps climbing past the course, one lesson per rung (register blocking,
 * 16-byte loads, conflict-free shared layouts, cp.async pipelines, warp
 * tiling, a tuned sm_90 configuration), then to the tensor cores (TF32 and
 * BF16), with cuBLAS measured in the same run.
 *
 * Each rung's `bytes` is its own count of global-memory traffic: a rung
 * that computes BM x BN tiles of C reads A ceil(n/BN) times and B
 * ceil(m/BM) times (the course's argument: tiling divides the traffic by the
 * tile width); the naive rungs read 2k floats per output.
 *
 * The leading size (for charts and --max-size) is m*n*k, the number of
 * multiply-adds. */
#include "gemm.h"
#include "device_reference.h"
#include "kernels/kernel_limits.h"
#include "ladder_util.h"
#include "ladders/ladders.h"
#include "ops/ops.h"

#include "warplab_lab.h"
#include <math.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Traffic and work                                                         */

static double dims_m(const wl_problem *p)
{
    return (double)wl_gemm_m(p);
}
static double dims_n(const wl_problem *p)
{
    return (double)wl_gemm_n(p);
}
static double dims_k(const wl_problem *p)
{
    return (double)wl_gemm_k(p);
}

/* C is written once, and read once more when beta != 0. */
static double c_bytes(const wl_problem *p)
{
    return 4.0 * dims_m(p) * dims_n(p) * (p->beta != 0.0 ? 2.0 : 1.0);
}

static double gemm_flops(const wl_problem *p)
{
    return 2.0 * dims_m(p) * dims_n(p) * dims_k(p);
}

/* What any implementation must move: A and B once, C. */
static double compulsory_bytes(const wl_problem *p)
{
    return 4.0 * (dims_m(p) * dims_k(p) + dims_k(p) * dims_n(p)) + c_bytes(p);
}

/* BF16 operands: 2 bytes an element in, float C. */
static double compulsory_bytes_bf16(const wl_problem *p)
{
    return 2.0 * (dims_m(p) * dims_k(p) + dims_k(p) * dims_n(p)) + c_bytes(p);
}

/* The copy reference: A and B read once and written once. */
static double copy_ab_bytes(const wl_problem *p)
{
    return 2.0 * 4.0 * (dims_m(p) * dims_k(p) + dims_k(p) * dims_n(p));
}

/* One output per thread from global memory: a row of A and a column of B per
 * element of C, 2k floats for 2k flops. */
static double naive_bytes(const wl_problem *p)
{
    return 4.0 * 2.0 * dims_m(p) * dims_n(p) * dims_k(p) + c_bytes(p);
}

/* BM x BN tiles of C: A is read once per column of tiles, B once per row. */
static double tile_bytes(const wl_problem *p, double bm, double bn, double element)
{
    return element * (dims_m(p) * dims_k(p) * ceil(dims_n(p) / bn) +
                      dims_k(p) * dims_n(p) * ceil(dims_m(p) / bm)) +
           c_bytes(p);
}

#define TILE_BYTES(name, bm, bn, element)                                                          \
    static double name(const wl_problem *p)                                                        \
    {                                                                                              \
        return tile_bytes(p, bm, bn, element);                                                     \
    }
TILE_BYTES(tile16_bytes, 16, 16, 4)
TILE_BYTES(tile32_bytes, 32, 32, 4)
TILE_BYTES(tile64_bytes, 64, 64, 4)
TILE_BYTES(tile32x128_bytes, 32, 128, 4)
TILE_BYTES(tile32x64_bytes, 32, 64, 4)
TILE_BYTES(tile128_bytes, 128, 128, 4)
TILE_BYTES(tile128x256_bytes, 128, 256, 4)
TILE_BYTES(tile256x128_bytes, 256, 128, 4)
TILE_BYTES(cpu_block_bytes, 64, 256, 4)
TILE_BYTES(tile128_bf16_bytes, 128, 128, 2)
TILE_BYTES(tile128x256_bf16_bytes, 128, 256, 2)

/* ------------------------------------------------------------------------ */
/* Limits                                                                   */

/* The kernels' own limits are src/kernels/kernel_limits.h's (the library's
 * candidates check the same). */

/* ------------------------------------------------------------------------ */
/* Verification                                                             */

static warplab_status verify_fp32(const wl_problem *p, const void *const *host, wl_check *check)
{
    return wl_gemm_verify(p, host, check, WL_GEMM_FP32);
}

static warplab_status verify_tf32(const wl_problem *p, const void *const *host, wl_check *check)
{
    return wl_gemm_verify(p, host, check, WL_GEMM_TF32);
}

static warplab_status verify_tf32_any(const wl_problem *p, const void *const *host, wl_check *check)
{
    return wl_gemm_verify(p, host, check, WL_GEMM_TF32_ANY);
}

static warplab_status verify_bf16(const wl_problem *p, const void *const *host, wl_check *check)
{
    return wl_gemm_verify(p, host, check, WL_GEMM_BF16);
}

static warplab_status verify_fp16(const wl_problem *p, const void *const *host, wl_check *check)
{
    return wl_gemm_verify(p, host, check, WL_GEMM_FP16);
}

/* Every rung but those flagged WL_RUNG_TRANSPOSES reads A and B as stored,
 * row-major (op N, N). */
static warplab_status gemm_rung_supports(const wl_rung *rung, const wl_problem *p, char *reason,
                                         size_t len)
{
    if ((p->variant & (WL_GEMM_TRANS_A | WL_GEMM_TRANS_B)) && !(rung->flags & WL_RUNG_TRANSPOSES)) {
        wl_format(reason, len,
                  "%s multiplies A and B as stored (op N, N); transposed operands run through "
                  "warplab_gemm_ex (the ex_* rungs)",
                  rung->id);
        return WARPLAB_ERROR_UNSUPPORTED;
    }
    return WARPLAB_OK;
}

/* The copy reference computes no product: it sets C's view to 0 (the gaps
 * between rows untouched). */
static warplab_status verify_copy_ab(const wl_problem *p, const void *const *host, wl_check *check)
{
    const float *c = (const float *)host[GEMM_C];
    const size_t m = wl_gemm_m(p), n = wl_gemm_n(p), ldc = wl_gemm_ldc(p);
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < n; j++)
            wl_check_value(check, i * ldc + j, (double)c[i * ldc + j], 0.0, 0.0);
    return check->bad ? WARPLAB_ERROR_VERIFICATION_FAILED : WARPLAB_OK;
}

/* ------------------------------------------------------------------------ */
/* Rungs                                                                    */

static const wl_rung gemm_rungs[] = {
    {.id = "cpu_loop",
     .title = "CPU triple loop, one core",
     .lesson = "The course's MatrixMulOnHost: for each element of C, a dot product of a row of A "
               "and a column of B. One core, and the column walk misses the cache.",
     .course = "seed 002, 'matrix multiply' (MatrixMulOnHost)",
     .flags = WL_RUNG_HOST,
     .bytes = naive_bytes,
     .supports = wl_gemm_cpu_loop_limits},
    {.id = "cpu_blocked",
     .title = "CPU blocked, all cores",
     .lesson = "Panels of B that stay in cache, a 4x16 block of C in registers that the compiler "
               "vectorizes, and rows of C spread over every core: the fair 'GPU vs CPU' row.",
     .course = "seed 003, 'GPU vs. CPU'",
     .flags = WL_RUNG_HOST,
     .bytes = cpu_block_bytes,
     .supports = wl_gemm_cpu_blocked_limits},
    {.id = "one_block",
     .title = "one block, one thread per element",
     .lesson = "The course's first kernel: the CPU's two outer loops become a 2-D block of "
               "threads, each doing one dot product from global memory. One block runs on one "
               "SM, and C cannot outgrow the block-size limit.",
     .course = "seed 002, 'Matrix multiplication kernel - thread specification'",
     .bytes = naive_bytes,
     .supports = wl_gemm_one_block_limits},
    {.id = "many_blocks",
     .title = "grid of 16x16 blocks, global memory",
     .lesson = "Rows and columns from blockIdx too: any size, every SM busy. Each multiply-add "
               "still reads two floats from global memory, so bandwidth bounds it (G80: 86.4 "
               "GB/s / 4 B = 21.6 of 346.5 GFLOPS).",
     .course = "seed 002, 'Pd tile per block' (G80: 15 GFLOPS measured, 21.6 bound)",
     .course_value = 15.0,
     .course_unit = "GFLOP/s",
     .course_device = "G80",
     .bytes = naive_bytes},
    {.id = "tiled16",
     .title = "shared-memory tiles, TILE_WIDTH 16",
     .lesson = "Each block loads a 16x16 tile of A and of B into shared memory per phase, then "
               "every thread reuses them 16 times: global traffic / 16 (G80 bound: 21.6 x 16 = "
               "345.6 GFLOPS). Multiples of 16 only.",
     .course = "seed 000, lectures 2.5-2.6; seed 002, 'TILE_WIDTH'",
     .course_value = 345.6,
     .course_unit = "GFLOP/s",
     .course_bound = true,
     .course_device = "G80",
     .bytes = tile16_bytes,
     .supports = wl_gemm_tiled16_limits},
    {.id = "tiled32",
     .title = "shared-memory tiles, TILE_WIDTH 32",
     .lesson = "The course's other size: 32x32 = 1024 threads a block and 8 KB of tiles, global "
               "traffic / 32, but fewer blocks per SM and longer barriers. Multiples of 32 only.",
     .course = "seed 000, lecture 2.6 'First-order size considerations'",
     .bytes = tile32_bytes,
     .supports = wl_gemm_tiled32_limits},
    {.id = "tiled_bounds",
     .title = "tiles with boundary checks, any size",
     .lesson = "Lecture 2.8: threads load 0 for tile elements outside A or B and write only "
               "elements inside C, so any m, n, k works; every thread still helps load.",
     .course = "seed 000, lectures 2.7-2.8",
     .bytes = tile32_bytes},
    {.id = "regblock_1d",
     .title = "1-D register blocking (8 outputs/thread)",
     .lesson = "Each thread computes a column of 8 outputs: one B value from shared memory feeds "
               "8 multiply-adds held in registers, so shared-memory loads per FMA drop 8-fold and "
               "the block tile grows to 64x64.",
     .course = "past the course (register blocking)",
     .bytes = tile64_bytes},
    {.id = "regblock_2d",
     .title = "2-D register blocking (8x8 outputs/thread)",
     .lesson = "An 8x8 block of C per thread: 8 values of A and 8 of B from shared memory feed 64 "
               "multiply-adds (4 FMAs per load instead of 1), and the 128x128 block tile halves "
               "global traffic again.",
     .course = "past the course (register blocking)",
     .bytes = tile128_bytes},
    {.id = "vectorized",
     .title = "float4 loads, transposed A tile",
     .lesson = "Global loads of 16 bytes (LDG.128), and A stored transposed in shared memory so "
               "that a thread's 8 values of A are contiguous too: the inner loop reads shared "
               "memory with LDS.128 only.",
     .course = "past the course (Hopper: 16-byte accesses)",
     .bytes = tile128_bytes},
    {.id = "conflict_free",
     .title = "bank-conflict-free shared layouts",
     .lesson = "The transposing stores of A hit one bank 4 times over, and a thread's 8 outputs "
               "as 2x2 groups of 4 make a warp's LDS.128 reads broadcast cleanly: a padded A "
               "tile and split per-thread tiles, so no access waits on a bank.",
     .course =
         "seed 003, 'HW organizace sdílené paměti', 'Konflikty bank' (bank conflicts, padding)",
     .bytes = tile128_bytes},
    {.id = "double_buffered",
     .title = "double-buffered tiles (cp.async)",
     .lesson = "cp.async copies the next tiles from global to shared memory while the SM "
               "computes on the current one (3 buffers, no registers in between; OpenCL stages "
               "one tile in registers): latency hides behind math, one barrier a tile.",
     .course = "past the course (Ampere+: cp.async)",
     .bytes = tile128_bytes},
    {.id = "warptile",
     .title = "warp tiling",
     .lesson = "Block -> warp -> thread tiles: each warp owns a 64x32 piece of C, so a warp's "
               "shared-memory reads are 8 distinct 16-byte vectors broadcast across lanes and "
               "the warp's working set stays in registers.",
     .course = "past the course (CUTLASS's hierarchy)",
     .bytes = tile128_bytes},
    {.id = "tuned",
     .title = "tuned for sm_90: 128x256x16, 4 stages",
     .lesson = "The warp-tiled cp.async kernel at its best sm_90 shape: 128x256 block tiles, 16x8 "
               "outputs per thread (FMA : LDS.128 = 21:1), 4 stages, one 256-thread block per "
               "SM.",
     .course = "past the course (tuning)",
     .bytes = tile128x256_bytes},
    {.id = "tuned_128x128",
     .title = "sm_90 alternative: 128x128x16, 4 stages",
     .lesson = "The tuned kernel with 128x128 block tiles and 8x8 outputs per thread: two "
               "blocks per SM instead of one; shown so one run compares the shapes.",
     .course = "past the course (tuning)",
     .flags = WL_RUNG_OFF_LADDER,
     .bytes = tile128_bytes},
    {.id = "tuned_256x128",
     .title = "sm_90 alternative: 256x128x16, 4 stages",
     .lesson = "The tuned kernel with 256x128 block tiles (A reused over 128 columns, B over 256 "
               "rows); shown so one run compares the shapes.",
     .course = "past the course (tuning)",
     .flags = WL_RUNG_OFF_LADDER,
     .bytes = tile256x128_bytes},
    {.id = "frag_128x256",
     .title = "sm_90 candidate: tuned's shape, barrier a step early",
     .lesson = "The tuned kernel with the barrier before a tile's last k step: that step's "
               "fragments are in registers, so the tile's stage is refilled at once (4 tiles in "
               "flight instead of 3) and the next tile's first fragments and copies issue "
               "behind the last step's FMAs instead of stalling after the barrier.",
     .course = "past the course (tuning)",
     .flags = WL_RUNG_OFF_LADDER,
     .bytes = tile128x256_bytes},
    {.id = "frag_128x128",
     .title = "sm_90 candidate: 128x128x16, 8x8 a thread, barrier early",
     .lesson = "The early barrier at 128x128 tiles, 8x8 outputs per thread: two 256-thread "
               "blocks an SM (16 warps) to hide latency, at a lower FMA : LDS ratio (16:1).",
     .course = "past the course (tuning)",
     .flags = WL_RUNG_OFF_LADDER,
     .bytes = tile128_bytes},
    {.id = "frag_128x128_w64",
     .title = "sm_90 candidate: 128x128x16, 4 warps of 64x64, barrier early",
     .lesson = "The early barrier at 128x128 tiles of four 64x64 warp tiles (8x16 a thread), two "
               "128-thread blocks an SM, so one block's barrier does not idle the SM. The best "
               "FP32 rung until frag_256x128_s6 (about 1.3% behind it at 4096^3).",
     .course = "past the course (tuning)",
     .flags = WL_RUNG_OFF_LADDER,
     .bytes = tile128_bytes},
    {.id = "frag_128x128_k8",
     .title = "sm_90 candidate: 128x128x8, 4 stages, barrier early",
     .lesson = "The early barrier at 128x128x8 (double_buffered's BK, 8x8 a thread, two blocks "
               "an SM): a loop body half as long (10 KB of instructions) for the instruction "
               "cache, at one barrier per 8 k.",
     .course = "past the course (tuning)",
     .flags = WL_RUNG_OFF_LADDER,
     .bytes = tile128_bytes},
    {.id = "frag_256x128",
     .title = "sm_90 candidate: 256x128x16, barrier early",
     .lesson = "The early barrier at tuned_256x128's shape (16x8 a thread, one block an SM).",
     .course = "past the course (tuning)",
     .flags = WL_RUNG_OFF_LADDER,
     .bytes = tile256x128_bytes},
    /* The best of some twenty shapes, stage counts, orders and loop forms
     * measured on an H200 (docs/DECISIONS.md, "The early barrier, 256x128
     * tiles, 6 stages, is the best FP32 kernel"): the best FP32 rung and what
     * warplab_gemm() uses; the other candidates stay off the ladder. */
    {.id = "frag_256x128_s6",
     .title = "early barrier, 256x128, 6 stages",
     .lesson = "Over tuned: the barrier moves before a tile's last k step, whose fragments are "
               "already in registers, so the stage refills at once and the next tile's loads "
               "hide behind the last FMAs; 256x128 tiles (eight 64x64 warp tiles, 8x16 a "
               "thread) and 6 stages in flight, one 256-thread block an SM. What "
               "warplab_gemm() uses.",
     .course = "past the course (tuning)",
     .bytes = tile256x128_bytes},
    /* The shape-aware rungs: one kernel per regime where the
     * big-tile kernel leaves the GPU idle, then the dispatcher that picks
     * among them. Off the ladder except the dispatcher: each wins only in
     * its regime. */
    {.id = "skinny_m",
     .title = "GEMV / skinny m: stream B once",
     .lesson = "With m <= 16 a 256x128 tile is 1/16 used and 32 tiles leave 100 of 132 SMs idle; "
               "the time is reading B. Each thread streams 16-byte rows of B for 4 columns, MR "
               "rows of C at once, many k rows in flight, k split over the SMs when columns are "
               "few: copy-speed.",
     .course = "past the course (bandwidth-bound GEMV)",
     .flags = WL_RUNG_OFF_LADDER},
    {.id = "skinny_n",
     .title = "GEMV / skinny n: stream A once",
     .lesson = "With n <= 16 each output is a dot product of a row of A with B's few columns: a "
               "warp streams 16-byte pieces of 2-4 rows of A while B's columns wait transposed "
               "in shared memory, and a butterfly of shuffles sums each row.",
     .course = "past the course (bandwidth-bound GEMV)",
     .flags = WL_RUNG_OFF_LADDER},
    {.id = "tile_32x128",
     .title = "small tiles 32x128, split-K",
     .lesson = "For m of 17 to 64 a 32-row tile wastes no rows, and splitting k over the SMs "
               "(partial sums in the workspace, added in a fixed order) turns 32 tiles into "
               "enough blocks to fill all of them.",
     .course = "past the course (split-K)",
     .flags = WL_RUNG_OFF_LADDER,
     .bytes = tile32x128_bytes},
    {.id = "tile_64x64",
     .title = "small tiles 64x64, split-K",
     .lesson = "Small squares and large k with small m, n: 64x64 tiles give 4x the blocks of "
               "128x128, four resident an SM, and split-K multiplies them again (64x64x65536: "
               "one tile becomes 128 blocks), reduced deterministically.",
     .course = "past the course (split-K)",
     .flags = WL_RUNG_OFF_LADDER,
     .bytes = tile64_bytes},
    {.id = "tile_32x64",
     .title = "small tiles 32x64, 4x4 a thread, split-K",
     .lesson = "Over tile_64x64: half the tile and a quarter of the outputs a thread (4x4). Where "
               "the tiles make about one wave, each block waits alone on its barriers and copies; "
               "twice the blocks of shorter warps hide that latency (H100: 777x555x333 23.6 -> "
               "20.2 us, 256^3 12.2 -> 9.5, 513x1025x257 26.7 -> 21.6). A full SM gains nothing "
               "and pays the lower FMA : LDS ratio (1000^3: 84 us against tile_64x64's 74).",
     .course = "past the course (split-K)",
     .flags = WL_RUNG_OFF_LADDER,
     .bytes = tile32x64_bytes},
    /* Not yet measured on a GPU: off the dispatcher's candidates. */
    {.id = "tail_128x128",
     .title = "128x128 tiles, last wave split over k",
     .lesson = "Over frag_128x128: 576 tiles on 264 resident slots (3001x2999x1001) are 2.18 "
               "waves, and the third runs 48 blocks on 48 of 132 SMs. The whole waves run as "
               "they are; only the last wave's tiles are split over k, into enough short blocks "
               "to fill the SMs, their partial sums added in order by a second kernel. H100: "
               "534 -> 502 us there (cuBLAS 425), 1500x6000x1000 487 -> 443 us (cuBLAS 437); "
               "the dispatcher takes it where its model says so.",
     .course = "past the course (wave quantization)",
     .flags = WL_RUNG_OFF_LADDER,
     .bytes = tile128_bytes},
    {.id = "tail_256x128",
     .title = "256x128 tiles, last wave split over k",
     .lesson = "frag_256x128_s6 with the last wave's tiles split over k: 2048x11008x4096 runs 5 "
               "whole waves of 132 tiles and 28 tiles in 4 chunks of k, where split-K on every "
               "tile wrote and read C's partial sums twice: 4453 -> 3962 us on an H100 (cuBLAS "
               "3698). With chunks of about 200 k (k = 1000) its one block an SM pays each "
               "piece's pipeline fill and loses to tail_128x128, so the dispatcher gives it "
               "chunks of 1024 or more.",
     .course = "past the course (wave quantization)",
     .flags = WL_RUNG_OFF_LADDER,
     .bytes = tile256x128_bytes},
    {.id = "dispatch",
     .title = "shape-aware dispatcher",
     .lesson = "What warplab_gemm() runs: models each kernel's time from m, n, k, alignment and "
               "the SM count (waves of tiles, idle SMs, bytes streamed, split-K's extra pass) and "
               "runs the least: skinny kernels for GEMV, small tiles and split-K for few tiles, "
               "frag_256x128_s6 for large, and past a wave only the last, partial wave split "
               "over k (tail_128x128, tail_256x128).",
     .course = "past the course (cuBLAS-style heuristics)",
     .vendor = "cublas_fp32"},
    {.id = "copy_ab",
     .title = "copy of A and B (device to device)",
     .lesson = "Reads A and B once and writes them elsewhere: the speed of light for a "
               "bandwidth-bound product (GEMV), whose %copy column compares with it.",
     .course = "reference",
     .flags = WL_RUNG_REFERENCE | WL_RUNG_OFF_LADDER,
     .bytes = copy_ab_bytes,
     .flops = wl_zero_work,
     .verify = verify_copy_ab},
    {.id = "tf32_mma",
     .title = "tensor cores, TF32 (mma.sync)",
     .lesson = "The Volta slide's D = A*B + C on small tiles: mma.sync.m16n8k8 multiplies TF32 "
               "(10-bit mantissa) operands into FP32 sums, 8x the work per instruction of FFMA "
               "rate. Not FP32: compare with cublas_tf32.",
     .course = "seed 001, 'Volta GV100' (tensor cores)",
     .flags = WL_RUNG_OFF_LADDER,
     .bytes = tile128_bytes,
     .verify = verify_tf32},
    {.id = "bf16_mma",
     .title = "tensor cores, BF16 (mma.sync)",
     .lesson = "mma.sync.m16n8k16 on BF16 operands (converted once, untimed, for this row and "
               "cuBLAS's alike) with FP32 sums: half the bytes and twice the tensor rate of TF32. "
               "Compare with cublas_bf16.",
     .course = "seed 001, 'Volta GV100' (mixed precision)",
     .flags = WL_RUNG_OFF_LADDER,
     .bytes = tile128_bf16_bytes,
     .verify = verify_bf16},
    {.id = "fp16_mma",
     .title = "tensor cores, FP16 (mma.sync)",
     .lesson = "bf16_mma's kernel on IEEE half copies (mma.sync.m16n8k16 .f16, the same fragment "
               "layout): 3 more mantissa bits than BF16 for 3 fewer exponent bits (inputs past "
               "65504 overflow), at the same tensor rate: 606.9 us against bf16_mma's 606.5 at "
               "4096^3 on an H100. Compare with cublas_ex_fp16.",
     .course = "seed 001, 'Volta GV100' (mixed precision)",
     .flags = WL_RUNG_OFF_LADDER,
     .bytes = tile128_bf16_bytes,
     .verify = verify_fp16},
    {.id = "bf16_wgmma",
     .title = "tensor cores, BF16 (wgmma, sm_90a)",
     .lesson = "Hopper's warpgroup MMA: 4 warps issue one asynchronous m64n128k16 that reads "
               "both BF16 tiles from shared memory by descriptor; 2 warpgroups, 128x256 tiles, a "
               "4-stage cp.async ring. Compare with cublas_bf16.",
     .course = "seed 001, 'Volta GV100' (mixed precision); Hopper",
     .flags = WL_RUNG_OFF_LADDER,
     .bytes = tile128x256_bf16_bytes,
     .verify = verify_bf16},
    {.id = "tf32_wgmma_tma",
     .title = "tensor cores, TF32 (TMA + wgmma, sm_90a)",
     .lesson = "The copy engine (TMA) loads 128-byte-swizzled tiles that wgmma reads without bank "
               "conflicts; a producer warpgroup issues copies while two consumer warpgroups only "
               "multiply (m64n256k8), meeting at mbarriers; a persistent grid overlaps one "
               "tile's stores with the next tile's loads. TF32 wgmma reads K-major operands: B is "
               "transposed (and both rounded to TF32) in setup, untimed. Compare with "
               "cublas_tf32_kmajor (cuBLAS on these copies) rather than cublas_tf32 (on the raw "
               "words, which cost it a clock at the power limit).",
     .course = "seed 001, 'Volta GV100' (tensor cores); Hopper",
     .flags = WL_RUNG_OFF_LADDER,
     .bytes = tile128x256_bytes,
     .vendor = "cublas_tf32_kmajor",
     .verify = verify_tf32},
    /* TF32 small tiles on the operands as stored, either op (tf32_tiles.cu). */
    {.id = "tf32_tile_64x64",
     .title = "tensor cores, TF32 64x64 tiles, either op, split-K",
     .lesson = "Over tf32_mma: each operand's shared tile keeps its layout in memory ([m][k] or "
               "[k][m], pads that keep fragment loads conflict-free in both), so op T costs no "
               "copy; 64x64 tiles give 4x the blocks of 128x128, and k split over chunks "
               "(partial sums added in chunk order) fills the SMs when tiles are few.",
     .course = "past the course (split-K)",
     .flags = WL_RUNG_OFF_LADDER | WL_RUNG_TRANSPOSES,
     .bytes = compulsory_bytes,
     .verify = verify_tf32_any},
    {.id = "tf32_tile_128x64",
     .title = "tensor cores, TF32 128x64 tiles, either op, split-K",
     .lesson = "tf32_tile_64x64 with twice the rows a block: each B fragment feeds twice the "
               "mma, a middle step between block count and reuse.",
     .course = "past the course (split-K)",
     .flags = WL_RUNG_OFF_LADDER | WL_RUNG_TRANSPOSES,
     .bytes = compulsory_bytes,
     .verify = verify_tf32_any},
    {.id = "tf32_tile_128x128",
     .title = "tensor cores, TF32 128x128 tiles, either op, split-K",
     .lesson = "tf32_mma's tile with either op and split-K: the most reuse of the three, for "
               "shapes with enough tiles.",
     .course = "past the course (split-K)",
     .flags = WL_RUNG_OFF_LADDER | WL_RUNG_TRANSPOSES,
     .bytes = compulsory_bytes,
     .verify = verify_tf32_any},
    {.id = "tf32_tiles",
     .title = "tensor cores, TF32 small tiles, planned",
     .lesson = "Picks the tile and the split of k from a model of waves of tiles on the SMs "
               "(blocks per SM, the rate a lone block reaches, the partial sums' extra pass): "
               "what warplab_gemm_ex runs for TF32 when the TMA + wgmma kernel has too few "
               "128x256 tiles or would copy an operand first.",
     .course = "past the course (cuBLAS-style heuristics)",
     .flags = WL_RUNG_OFF_LADDER | WL_RUNG_TRANSPOSES,
     .bytes = compulsory_bytes,
     .verify = verify_tf32_any},
    {.id = "bf16_wgmma_tma",
     .title = "tensor cores, BF16 (TMA + wgmma, sm_90a)",
     .lesson = "Over bf16_wgmma: the copy engine (TMA) moves each 128-byte-swizzled tile (no "
               "bank conflicts, no address math in the SM), a producer warpgroup feeds two "
               "consumer warpgroups through mbarriers instead of a block-wide barrier, and a "
               "persistent grid overlaps one tile's stores with the next tile's loads. Compare "
               "with cublas_bf16.",
     .course = "seed 001, 'Volta GV100' (mixed precision); Hopper",
     .flags = WL_RUNG_OFF_LADDER,
     .bytes = tile128x256_bf16_bytes,
     .verify = verify_bf16},
    /* Issue 15's rungs past bf16_wgmma_tma, BF16 and FP16: variants of its
     * kernel (wgmma_tma.sm90a.cu). Not yet measured on a GPU. */
    {.id = "bf16_wgmma_tma_store",
     .title = "tensor cores, BF16 (TMA + wgmma, C by TMA store, sm_90a)",
     .lesson = "Over bf16_wgmma_tma: C leaves through shared memory instead of straight from "
               "the registers. Each consumer writes 32-column slices of its 64 x 256 result "
               "into two 8 KiB buffers in the 128-byte swizzle (no bank conflicts) and one "
               "thread hands each to a bulk tensor store, which writes whole lines and clips "
               "the matrix's edges; the consumers go on to the next tile's main loop while the "
               "stores drain, where the register stores (8 rows x 32 bytes each) were every "
               "tile's fixed cost. setmaxnreg 24 / 240 instead of 40 / 232 is a re-balance that "
               "should change nothing measurable (the SASS: the consumers use 160 registers, "
               "the producer 22, no spills). Beta != 0 or unaligned rows of C keep the register "
               "stores. H100, median of 3 runs: 4096^3 191.4 -> 183.7 us (0.947x -> 0.988x "
               "cublas_bf16), 4000^3 196.5 -> 182.5 us (0.907x -> 0.978x); 8192^3 unchanged "
               "(0.984x), where a tile's stores are a smaller part of its time.",
     .course = "seed 001, 'Volta GV100' (mixed precision); Hopper",
     .flags = WL_RUNG_OFF_LADDER,
     .bytes = tile128x256_bf16_bytes,
     .verify = verify_bf16},
    {.id = "bf16_wgmma_cluster",
     .title = "tensor cores, BF16 (TMA store, 2x1 cluster multicasting B, sm_90a)",
     .lesson = "Over bf16_wgmma_tma_store: the two CTAs of a 2 x 1 thread-block cluster take "
               "neighbouring tile rows of one tile column, so they read the same B tile. Each "
               "loads its own A and half of B, and the copy engine writes that half into both "
               "CTAs' shared memory at once (.multicast::cluster): 32 KiB from L2 a k tile "
               "instead of 48. A stage is refilled only once the consumers of both CTAs have "
               "released it (each arrives on its own and its peer's barrier); the grid is as "
               "many clusters as fit at once, walking bands of 16 tile rows. The release is "
               "the lesson: written as mbarrier.arrive.release.cluster, each release compiled "
               "to MEMBAR.ALL.GPU before the arrive, twice a stage, and the rung ran at half "
               "the store rung's speed (387.9 us at 4096^3, SMs busy 37%; ncu: 4.3 membar and "
               "7.3 wgmma-wait stalls an instruction). The stage's only readers are wgmma "
               "groups already retired by wgmma.wait_group, so nothing needs the fence: "
               "relaxed arrives (.relaxed.cluster) give, H100, median of 3: 4000^3 181.4 us "
               "(0.985x cublas_bf16, the store rung 0.955x), 4096^3 183.6 (0.989x, the same), "
               "8192^3 1397 (1.005x, the store rung 0.999x). Compare with cublas_bf16.",
     .course = "seed 001, 'Volta GV100' (mixed precision); Hopper",
     .flags = WL_RUNG_OFF_LADDER,
     .bytes = tile128x256_bf16_bytes,
     .verify = verify_bf16},
    {.id = "fp16_wgmma_tma_store",
     .title = "tensor cores, FP16 (TMA + wgmma, C by TMA store, sm_90a)",
     .lesson = "bf16_wgmma_tma_store's kernel on IEEE half copies (wgmma .f16): 3 more mantissa "
               "bits than BF16 at the same tensor rate: 4096^3 188.6 us, 0.985x cublas_ex_fp16 "
               "(H100). Compare with cublas_ex_fp16.",
     .course = "seed 001, 'Volta GV100' (mixed precision); Hopper",
     .flags = WL_RUNG_OFF_LADDER,
     .bytes = tile128x256_bf16_bytes,
     .verify = verify_fp16},
    {.id = "fp16_wgmma_cluster",
     .title = "tensor cores, FP16 (TMA store, 2x1 cluster multicasting B, sm_90a)",
     .lesson = "bf16_wgmma_cluster's kernel on IEEE half copies (wgmma .f16). H100, median "
               "of 3, relaxed arrives: 4000^3 185.6 us (1.011x cublas_ex_fp16), 4096^3 188.1 "
               "(0.985x), 8192^3 1467 (0.991x; fp16_wgmma_tma_store 0.970x). Compare with "
               "cublas_ex_fp16.",
     .course = "seed 001, 'Volta GV100' (mixed precision); Hopper",
     .flags = WL_RUNG_OFF_LADDER,
     .bytes = tile128x256_bf16_bytes,
     .verify = verify_fp16},
    {.id = "tf32_wgmma_tma_store",
     .title = "tensor cores, TF32 (TMA + wgmma, C by TMA store, sm_90a)",
     .lesson = "bf16_wgmma_tma_store's change on tf32_wgmma_tma: C through shared memory and "
               "bulk tensor stores while the next tile's main loop runs. A TF32 k tile is 32 "
               "values (half BF16's), so a tile's main loop is twice as long against the same "
               "stores, and the gain is smaller than BF16's. H100, median of 5 against "
               "cublas_tf32_kmajor: 4000^3 0.936x -> 1.000x, 4096^3 0.982x -> 0.999x, 8192^3 "
               "1.010x -> 1.023x (one run 0.936x).",
     .course = "seed 001, 'Volta GV100' (tensor cores); Hopper",
     .flags = WL_RUNG_OFF_LADDER,
     .bytes = tile128x256_bytes,
     .vendor = "cublas_tf32_kmajor",
     .verify = verify_tf32},
    {.id = "tf32_wgmma_cluster",
     .title = "tensor cores, TF32 (TMA store, 2x1 cluster multicasting B, sm_90a)",
     .lesson = "bf16_wgmma_cluster's kernel on TF32 words: two CTAs of a cluster share the B "
               "tile and each loads half of it into both, 32 KiB from L2 a k tile instead of "
               "48. H100, median of 5 against cublas_tf32_kmajor: 4000^3 0.997x, 4096^3 "
               "1.000x, 8192^3 1.029x (1.007-1.034), the steadiest of the three TF32 rungs; "
               "ncu at 4096^3 found no fewer L2 bytes than the store rung's and the same clock "
               "as cuBLAS (1.68 GHz): at parity with cuBLAS on the same inputs, not past it.",
     .course = "seed 001, 'Volta GV100' (tensor cores); Hopper",
     .flags = WL_RUNG_OFF_LADDER,
     .bytes = tile128x256_bytes,
     .vendor = "cublas_tf32_kmajor",
     .verify = verify_tf32},
    /* Issue 15: the cluster rungs with their last wave cut into shares of
     * k tiles (stream-K), the same kernel (wgmma_tma.sm90a.cu). */
    {.id = "bf16_wgmma_streamk",
     .title = "tensor cores, BF16 (cluster rung, last wave as stream-K shares, sm_90a)",
     .lesson = "Over bf16_wgmma_cluster: where the pairs of tiles are not a multiple of the "
               "clusters, the last wave leaves clusters idle. Now the whole waves run as before "
               "and the left-over pairs' k tiles are cut into equal shares, one a cluster, at "
               "any k tile. A piece short of its tile's last k tile leaves its FP32 sums in a "
               "workspace slot and raises a flag; the piece holding the last k tile adds them "
               "in a fixed order (the same result every run) and stores C. Each cluster does "
               "the head of its later tile first, so all stay near the same k tile and find A "
               "and B in L2 (walked from each share's start instead, 4096^3 ran at 0.91x). The "
               "hand-over costs: 128 KiB of sums a CTA through L2 (4096^3, shares of 56 of 64 "
               "k tiles: 193 us, 184 with the sums dropped, 187 whole), so shares run only where "
               "they are at most 3/4 of a tile. H100, median of 3, cluster rung -> this one "
               "(x cublas_bf16): 2304x4096x8192 254 -> 214 us (0.76x -> 0.90x), 4096x4352x4096 "
               "225 -> 206 (0.89x -> 0.97x), 4224x4096x4096 224 -> 212 (0.85x -> 0.89x), 6144^3 "
               "0.982x -> 0.990x, 8192^3 1.009x -> 1.013x; 4096^3 unchanged (0.98x, no shares). "
               "cuBLAS stays ahead where the last wave is nearly empty (2304x4096x8192: 193 us).",
     .course = "seed 001, 'Volta GV100' (mixed precision); Hopper",
     .flags = WL_RUNG_OFF_LADDER,
     .bytes = tile128x256_bf16_bytes,
     .verify = verify_bf16},
    {.id = "fp16_wgmma_streamk",
     .title = "tensor cores, FP16 (cluster rung, last wave as stream-K shares, sm_90a)",
     .lesson = "bf16_wgmma_streamk's kernel on IEEE half copies (wgmma .f16). H100, median "
               "of 3, fp16_wgmma_cluster -> this one (x cublas_ex_fp16): 2304x4096x8192 0.77x "
               "-> 0.91x, 4096x4352x4096 0.91x -> 0.98x, 4224x4096x4096 0.81x -> 0.89x, 6144^3 "
               "0.987x -> 0.993x, 8192^3 0.988x -> 0.989x, 4096^3 0.98x (no shares). Compare "
               "with cublas_ex_fp16.",
     .course = "seed 001, 'Volta GV100' (mixed precision); Hopper",
     .flags = WL_RUNG_OFF_LADDER,
     .bytes = tile128x256_bf16_bytes,
     .verify = verify_fp16},
    {.id = "tf32_wgmma_streamk",
     .title = "tensor cores, TF32 (cluster rung, last wave as stream-K shares, sm_90a)",
     .lesson = "bf16_wgmma_streamk's change on tf32_wgmma_cluster: the last wave's k tiles in "
               "equal shares over every cluster. H100, median of 3, tf32_wgmma_cluster -> this "
               "one (x cublas_tf32_kmajor): 2304x4096x8192 472 -> 382 us (0.83x -> 1.02x), "
               "4096x4352x4096 0.95x -> 1.07x, 4224x4096x4096 0.83x -> 0.95x, 8192^3 1.029x -> "
               "1.050x (1.041-1.056), 6144^3 1.02x -> 1.01x (noisy), 4096^3 1.00x (no shares). "
               "Compare with cublas_tf32_kmajor (cuBLAS on the same TF32-rounded copies).",
     .course = "seed 001, 'Volta GV100' (tensor cores); Hopper",
     .flags = WL_RUNG_OFF_LADDER,
     .bytes = tile128x256_bytes,
     .vendor = "cublas_tf32_kmajor",
     .verify = verify_tf32},
    /* warplab_gemm_ex, exactly as a user calls it (the inputs held in the
     * rung's type, row-major, op(A) and op(B) as the problem stores them),
     * each against cuBLAS with the same contract. */
    {.id = "ex_tf32",
     .title = "warplab_gemm_ex, TF32 compute",
     .lesson = "The library's TF32 call on the user's float A and B. A cost model picks per "
               "shape: the FP32 dispatcher (GEMV and skinny shapes: faster there, and more "
               "accurate), the small mma.sync tiles (tf32_tiles), or the TMA + wgmma kernel "
               "with 128x128 or 128x256 tiles and k split where tiles are few; a row-major B "
               "(op N) is read as stored from registers (ex_tf32_wgmma: C^T = B^T A^T), other "
               "operands that are not K-major are copied into the workspace in the timed call.",
     .course = "past the course (cublasGemmEx's interface)",
     .flags = WL_RUNG_OFF_LADDER | WL_RUNG_TRANSPOSES,
     .vendor = "cublas_ex_tf32",
     .bytes = compulsory_bytes,
     .verify = verify_tf32_any},
    {.id = "ex_bf16",
     .title = "warplab_gemm_ex, BF16 inputs",
     .lesson = "The library's call on BF16 A and B as the user holds them (converted from the "
               "float problem in setup, untimed): exact products, FP32 sums. The GEMM planner "
               "sends the GEMV family (gemv.cuh) m or n small with the big operand along k, "
               "and of 1 along its rows; a cost model picks among the ex16_* rows for the "
               "rest: mma.sync tiles on the operands as stored with k split where tiles are "
               "few (small shapes, rows not 16-byte aligned), and TMA + wgmma on the operands "
               "as stored with 128x128 or 128x256 tiles and k split (ex16_wgmma: everything "
               "else; ex16_tma, with copies, where rows are not 16-byte aligned).",
     .course = "past the course (cublasGemmEx's interface)",
     .flags = WL_RUNG_OFF_LADDER | WL_RUNG_TRANSPOSES,
     .vendor = "cublas_ex_bf16",
     .bytes = compulsory_bytes_bf16,
     .verify = verify_bf16},
    {.id = "ex_fp16",
     .title = "warplab_gemm_ex, FP16 inputs",
     .lesson = "As ex_bf16 with IEEE half operands (10-bit mantissa, 5-bit exponent): the same "
               "kernels with wgmma's .f16 type; the products are still exact in FP32.",
     .course = "past the course (cublasGemmEx's interface)",
     .flags = WL_RUNG_OFF_LADDER | WL_RUNG_TRANSPOSES,
     .vendor = "cublas_ex_fp16",
     .bytes = compulsory_bytes_bf16,
     .verify = verify_fp16},
    /* The 16-bit paths of ex_bf16, each forced (cuda): the candidates of its
     * cost model, verified and timed alone. */
    {.id = "ex16_mma",
     .title = "gemm_ex BF16: mma.sync tiles on the operands as stored, split k",
     .lesson = "The TMA + wgmma kernel wants K-major operands, so every other layout paid a "
               "transposed copy in the call, and its 128x256 tiles leave SMs idle below about "
               "4096^2. mma.sync m16n8k16 with ldmatrix(.trans) reads row-major A and B as "
               "stored for either op (the shared tile keeps the stored layout; .trans builds the "
               "fragment of a tile contiguous along m or n), 128x128 or 64x64 tiles fill more "
               "SMs, and a deterministic split of k fills them when m and n are small and k "
               "large (64 x 64 x 65536: one tile, 64 splits).",
     .course = "past the course (cublasGemmEx's interface)",
     .flags = WL_RUNG_OFF_LADDER | WL_RUNG_TRANSPOSES,
     .vendor = "cublas_ex_bf16",
     .bytes = compulsory_bytes_bf16,
     .verify = verify_bf16},
    {.id = "ex16_tma",
     .title = "gemm_ex BF16: TMA + wgmma on K-major operands",
     .lesson = "The ladder's fastest large-square kernel behind the API: operands that are not "
               "K-major (A with op T, B with op N) or whose rows are not 16-byte aligned are "
               "copied into the workspace first. It wins where its 128x256 tiles fill the SMs "
               "several times over and the copy is small next to the product.",
     .course = "past the course (cublasGemmEx's interface)",
     .flags = WL_RUNG_OFF_LADDER | WL_RUNG_TRANSPOSES,
     .vendor = "cublas_ex_bf16",
     .bytes = compulsory_bytes_bf16,
     .verify = verify_bf16},
    {.id = "ex16_wgmma",
     .title = "gemm_ex BF16: TMA + wgmma on the operands as stored, split k",
     .lesson = "ex16_tma pays a transposed copy of every operand that is not K-major (the "
               "row-major B of the N, N case: a full extra read and write of B), and its "
               "128x256 tiles leave SMs idle on mid shapes. wgmma reads 16-bit operands M- or "
               "N-major too (its transpose bits): the copy engine writes 64-wide boxes of A or "
               "B in their stored layout, with no copy. 128x128 tiles and a deterministic split "
               "of k over (split, tile) units of the persistent grid, the partial sums added in "
               "order by a second kernel, fill the SMs when tiles are few (m of 256-512 with k "
               "of 4096 and more, 64 x 64 x 65536). An FP32 result (C with beta 0, or the "
               "partial sums) leaves through shared memory and the copy engine's bulk stores "
               "(cp.async.bulk.tensor, whole lines, edges clipped by the hardware), which run "
               "while the next unit's main loop does: 4096 x 4096 x 64 went from 43 to 26 us, "
               "4096^3 from 201 to 183 us (H100). For m <= 64 a narrow 64x64 tile with one "
               "consumer warpgroup and 12 stages: 64 blocks at n = 4096 stream B over the whole "
               "k with no split and no second kernel, and A's box holds only m rows (the copy "
               "engine's zero fill of a box mostly past the edge was slow): 2 to 64 x 4096 x "
               "4096 went from 21-23 us to 17 (0.96-1.07x cuBLAS; H100), the GEMV with B "
               "row-major from 20.6 to 17.1. y = A x (n = 1) runs the same on the transposed "
               "problem, C^T = x^T A^T: 4096 x 1 x 4096 from 22.4 to 18.1 us.",
     .course = "past the course (cublasGemmEx's interface)",
     .flags = WL_RUNG_OFF_LADDER | WL_RUNG_TRANSPOSES,
     .vendor = "cublas_ex_bf16",
     .bytes = compulsory_bytes_bf16,
     .verify = verify_bf16},
    {.id = "ex16_thin",
     .title = "gemm_ex BF16: m or n <= 64, mma.sync fragments from global memory, split k",
     .lesson = "With m (or n) of 1 to 64 the product is bound by the big operand's bytes, yet "
               "the CUDA-core GEMV kernels sum on FP32 FMAs (compute-bound from m = 8) and "
               "ex16_mma/ex16_wgmma stage 128-row tiles that are mostly zeros, in too few units "
               "for 132 SMs. Here "
               "each lane loads the big operand 16 bytes at a time straight into mma.sync "
               "m16n8k16 fragments (k permuted inside a 32-wide step so that 8 consecutive k "
               "are one lane's two fragment pairs; along n, 8 consecutive columns become 8 n8 "
               "tiles), no shared memory on the way; 4 warps of a block take interleaved k "
               "steps of one 64-column strip and add their sums in shared memory, and k is "
               "split until about 4 blocks an SM are in flight. A dead end as it stands: "
               "modelled at 15 us for 1x4096x4096, it took 24.1 us on an H100 (ex_bf16 22.4, "
               "cuBLAS 16.7), 0.54x cuBLAS over 15 thin shapes and 0.32x at 48x4096x4096 (4 row "
               "tiles), so the cost model does not pick it.",
     .course = "past the course (cublasGemmEx's interface)",
     .flags = WL_RUNG_OFF_LADDER | WL_RUNG_TRANSPOSES,
     .vendor = "cublas_ex_bf16",
     .bytes = compulsory_bytes_bf16,
     .verify = verify_bf16},
    {.id = "ex_tf32_wgmma",
     .title = "gemm_ex TF32: TMA + wgmma, row-major B read as stored, split k",
     .lesson = "wgmma reads TF32 only K-major from shared memory, so ex_tf32 copied a "
               "row-major B (op N) transposed into the workspace in every call: for 512 x 4096 "
               "x 11008 the copy alone took longer than cuBLAS's whole product. Computing C^T = "
               "B^T A^T instead makes B^T wgmma's A operand, which may come from registers: the "
               "consumers read their fragments from the copy engine's N-major boxes of B, A "
               "(K-major as stored) is the shared-memory operand, and the accumulator is "
               "stored transposed. No copy; k split over the persistent grid as ex16_wgmma. The "
               "fragments of the next k tile are read while this one's wgmma group runs (two "
               "register sets, wait_group 1), not after it has finished.",
     .course = "past the course (cublasGemmEx's interface)",
     .flags = WL_RUNG_OFF_LADDER | WL_RUNG_TRANSPOSES,
     .vendor = "cublas_ex_tf32",
     .bytes = compulsory_bytes,
     .verify = verify_tf32_any},
    {.id = "cublas_fp32",
     .title = "cuBLAS sgemm, pedantic FP32",
     .lesson = "cublasSgemm with CUBLAS_PEDANTIC_MATH (true FP32, no TF32): the vendor's FP32 "
               "kernel, measured in the same run; the %vendor column compares with it.",
     .course = "vendor library",
     .flags = WL_RUNG_VENDOR | WL_RUNG_BASELINE},
    {.id = "cublas_tf32",
     .title = "cuBLAS, TF32 tensor cores",
     .lesson = "cublasGemmEx with CUBLAS_COMPUTE_32F_FAST_TF32 on the float inputs: the row the "
               "TF32 rungs compare with.",
     .course = "vendor library",
     .flags = WL_RUNG_VENDOR,
     .verify = verify_tf32_any},
    {.id = "cublas_bf16",
     .title = "cuBLAS, BF16 tensor cores",
     .lesson = "cublasGemmEx on the same BF16 copies of A and B, FP32 C and sums: the row the "
               "BF16 rungs compare with.",
     .course = "vendor library",
     .flags = WL_RUNG_VENDOR,
     .bytes = compulsory_bytes_bf16,
     .verify = verify_bf16},
    {.id = "cublas_tf32_kmajor",
     .title = "cuBLAS, TF32 tensor cores, the TMA rungs' copies",
     .lesson = "cublasGemmEx (TF32) on the K-major copies of A and B that the TMA + wgmma TF32 "
               "rungs multiply, rounded to TF32 in setup: their low 13 bits are zero, and such "
               "words cost the tensor cores less power, so the H100 holds a higher clock at its "
               "power limit (tf32_wgmma_tma: 1.70 GHz on them, 1.64 GHz on the raw words). The "
               "row those rungs compare with: the same inputs on both sides.",
     .course = "vendor library",
     .flags = WL_RUNG_VENDOR,
     .verify = verify_tf32},
    {.id = "cublas_ex_tf32",
     .title = "cuBLAS GemmEx, TF32, op(A) op(B)",
     .lesson = "cublasGemmEx with CUBLAS_COMPUTE_32F_FAST_TF32 on the float inputs as stored, "
               "with the problem's transposes: the row ex_tf32 compares with.",
     .course = "vendor library",
     .flags = WL_RUNG_VENDOR | WL_RUNG_TRANSPOSES,
     .verify = verify_tf32_any},
    {.id = "cublas_ex_bf16",
     .title = "cuBLAS GemmEx, BF16 inputs, op(A) op(B)",
     .lesson = "cublasGemmEx on row-major BF16 A and B as the user holds them (the same copies "
               "as ex_bf16), FP32 sums and C: the row ex_bf16 compares with.",
     .course = "vendor library",
     .flags = WL_RUNG_VENDOR | WL_RUNG_TRANSPOSES,
     .bytes = compulsory_bytes_bf16,
     .verify = verify_bf16},
    {.id = "cublas_ex_fp16",
     .title = "cuBLAS GemmEx, FP16 inputs, op(A) op(B)",
     .lesson = "cublasGemmEx on row-major FP16 A and B as the user holds them, FP32 sums and C: "
               "the row ex_fp16 compares with.",
     .course = "vendor library",
     .flags = WL_RUNG_VENDOR | WL_RUNG_TRANSPOSES,
     .bytes = compulsory_bytes_bf16,
     .verify = verify_fp16},
};

/* ------------------------------------------------------------------------ */
/* Problems                                                                 */

static int gemm_buffers(const wl_problem *p, wl_buffer_spec *spec)
{
    const size_t m = wl_gemm_m(p), n = wl_gemm_n(p), k = wl_gemm_k(p);
    (void)k;
    spec[GEMM_A] = (wl_buffer_spec){
        WL_IN, WARPLAB_FLOAT32, wl_gemm_span(wl_gemm_a_rows(p), wl_gemm_a_cols(p), wl_gemm_lda(p)),
        -1.0, 1.0};
    spec[GEMM_B] = (wl_buffer_spec){
        WL_IN, WARPLAB_FLOAT32, wl_gemm_span(wl_gemm_b_rows(p), wl_gemm_b_cols(p), wl_gemm_ldb(p)),
        -1.0, 1.0};
    spec[GEMM_C] = (wl_buffer_spec){p->beta != 0.0 ? WL_INOUT : WL_OUT, WARPLAB_FLOAT32,
                                    wl_gemm_span(m, n, wl_gemm_ldc(p)), -1.0, 1.0};
    return GEMM_BUFFERS;
}

static void gemm_describe(const wl_problem *p, char *text, size_t len)
{
    char extra[48] = "";
    size_t used = 0;
    if (p->ld[0] || p->ld[1] || p->ld[2])
        used += (size_t)snprintf(extra + used, sizeof extra - used, " ld=%zu,%zu,%zu",
                                 wl_gemm_lda(p), wl_gemm_ldb(p), wl_gemm_ldc(p));
    if (used < sizeof extra && (p->alpha != 1.0 || p->beta != 0.0))
        used +=
            (size_t)snprintf(extra + used, sizeof extra - used, " a=%g b=%g", p->alpha, p->beta);
    if (used < sizeof extra && (p->variant & (WL_GEMM_TRANS_A | WL_GEMM_TRANS_B)))
        used += (size_t)snprintf(extra + used, sizeof extra - used, " op=%c%c",
                                 wl_gemm_trans_a(p) ? 'T' : 'N', wl_gemm_trans_b(p) ? 'T' : 'N');
    if (used < sizeof extra && p->nan_input)
        used += (size_t)snprintf(extra + used, sizeof extra - used, " NaN in A");
    wl_format(text, len, "%zux%zux%zu float%s%s", wl_gemm_m(p), wl_gemm_n(p), wl_gemm_k(p), extra,
              p->misalign ? " misaligned" : "");
}

static double gemm_leading_size(const wl_problem *p)
{
    return dims_m(p) * dims_n(p) * dims_k(p);
}

/* Each matrix must index with fewer than 2^31 elements (kernels use 32-bit
 * offsets within a row block, 64-bit between rows). */
static warplab_status gemm_make_problem(const size_t size[3], int dims, const char *dtype,
                                        const char *op, wl_problem *problem, char *error,
                                        size_t error_len)
{
    if (dtype && *dtype && strcmp(dtype, "float") != 0 && strcmp(dtype, "float32") != 0) {
        wl_format(error, error_len,
                  "matrix multiply takes float32 inputs (asked for '%s'); the TF32 and BF16 rows "
                  "round them on the way to the tensor cores",
                  dtype);
        return WARPLAB_ERROR_INVALID_ARGUMENT;
    }
    if (op && *op) {
        wl_format(error, error_len, "matrix multiply has no --op (asked for '%s')", op);
        return WARPLAB_ERROR_INVALID_ARGUMENT;
    }
    if (dims != 1 && dims != 3) {
        wl_format(error, error_len,
                  "matrix multiply takes m x n x k (e.g. 4000x3001x1999) or one number for a "
                  "square problem, not %d sizes",
                  dims);
        return WARPLAB_ERROR_INVALID_ARGUMENT;
    }
    memset(problem, 0, sizeof *problem);
    for (int i = 0; i < 3; i++)
        problem->dim[i] = dims == 1 ? size[0] : size[i];
    problem->dims = 3;
    problem->dtype = WARPLAB_FLOAT32;
    problem->alpha = 1.0;
    problem->beta = 0.0;
    const size_t m = problem->dim[0], n = problem->dim[1], k = problem->dim[2];
    if (!wl_gemm_fits_int32(m, k) || !wl_gemm_fits_int32(k, n) || !wl_gemm_fits_int32(m, n)) {
        wl_format(error, error_len,
                  "%zu x %zu x %zu: A, B and C must each hold fewer than 2^31 elements", m, n, k);
        return WARPLAB_ERROR_INVALID_ARGUMENT;
    }
    return WARPLAB_OK;
}

typedef struct gemm_case {
    size_t m, n, k;
    size_t lda, ldb, ldc; /* 0 = tight */
    double alpha, beta;
    int misalign, nan_input;
} gemm_case;

/* Shapes every device checks: 1x1x1, odd and prime sizes, 1xNxK, Mx1xK,
 * k = 1, k = 0 (C = beta*C), empty C, padded rows, misaligned views, beta != 0
 * (C read and written), a NaN in A, multiples of the course's tiles, and
 * shapes just past the 128-wide tiles. All stay under 2.1e6 multiply-adds
 * (what the sanitizer runs take) except the squares. */
static const gemm_case common_cases[] = {
    {1, 1, 1, 0, 0, 0, 1.0, 0.0, 0, 0},
    {17, 33, 65, 0, 0, 0, 1.0, 0.0, 0, 0},
    {1, 300, 257, 0, 0, 0, 1.0, 0.0, 0, 0},
    {301, 1, 129, 0, 0, 0, 1.0, 0.0, 0, 0},
    {64, 48, 1, 0, 0, 0, 1.0, 0.0, 0, 0},
    {5, 7, 0, 0, 0, 0, 1.0, 0.0, 0, 0},
    {5, 7, 0, 0, 0, 0, 2.0, 0.5, 0, 0},
    {0, 5, 5, 0, 0, 0, 1.0, 0.0, 0, 0},
    {4, 0, 3, 0, 0, 0, 1.0, 0.0, 0, 0},
    {33, 17, 9, 0, 0, 0, 1.0, 0.0, 0, 1},
    {67, 45, 33, 40, 50, 47, 1.5, -0.75, 0, 0},
    {31, 37, 41, 0, 0, 0, -1.0, 0.5, 1, 0},
    {130, 127, 120, 133, 129, 131, 1.0, 0.0, 1, 0},
    {32, 32, 32, 0, 0, 0, 1.0, 0.0, 0, 0},
    {96, 32, 64, 0, 0, 0, 0.5, 0.0, 0, 0},
    {48, 80, 16, 0, 0, 0, 1.0, 0.0, 0, 0},
    {64, 64, 64, 0, 0, 0, 1.0, 2.0, 0, 0},
    {200, 150, 67, 0, 0, 0, 1.0, 0.0, 0, 0},
    {129, 257, 17, 0, 0, 0, 1.0, 0.0, 0, 0},
    {128, 128, 128, 0, 0, 0, 1.0, 0.0, 0, 0},
    {256, 256, 256, 0, 0, 0, 1.0, 0.0, 0, 0},
    {512, 512, 512, 0, 0, 0, 1.0, 0.0, 0, 0},
};

/* Transposed operands (op(A), op(B) = T), which only the WL_RUNG_TRANSPOSES
 * rungs take: every combination at odd sizes, padded strides with beta,
 * misaligned views, a NaN in A, GEMV-like shapes. */
/* A problem with operands stored transposed (WL_GEMM_TRANS_* bits). */
typedef struct transposed_case {
    int variant;
    gemm_case shape;
} transposed_case;

static const transposed_case transposed_cases[] = {
    {WL_GEMM_TRANS_A, {17, 33, 65, 0, 0, 0, 1.0, 0.0, 0, 0}},
    {WL_GEMM_TRANS_B, {17, 33, 65, 0, 0, 0, 1.0, 0.0, 0, 0}},
    {WL_GEMM_TRANS_A | WL_GEMM_TRANS_B, {17, 33, 65, 0, 0, 0, 1.0, 0.0, 0, 0}},
    {WL_GEMM_TRANS_A | WL_GEMM_TRANS_B, {67, 45, 33, 70, 50, 47, 1.5, -0.75, 0, 0}},
    {WL_GEMM_TRANS_B, {67, 45, 33, 69, 36, 46, 1.0, 0.5, 0, 0}},
    {WL_GEMM_TRANS_A, {31, 37, 41, 0, 0, 0, -1.0, 0.5, 1, 0}},
    {WL_GEMM_TRANS_A | WL_GEMM_TRANS_B, {33, 17, 9, 0, 0, 0, 1.0, 0.0, 0, 1}},
    {WL_GEMM_TRANS_B, {1, 300, 257, 0, 0, 0, 1.0, 0.0, 0, 0}},
    {WL_GEMM_TRANS_A, {301, 1, 129, 0, 0, 0, 1.0, 0.0, 0, 0}},
    {WL_GEMM_TRANS_A | WL_GEMM_TRANS_B, {5, 7, 0, 0, 0, 0, 2.0, 0.5, 0, 0}},
    {WL_GEMM_TRANS_B, {200, 150, 67, 0, 0, 0, 1.0, 0.0, 0, 0}},
    {WL_GEMM_TRANS_A, {130, 257, 120, 133, 0, 259, 1.0, 0.0, 1, 0}},
};

/* A GPU also takes large transposed shapes (several tiles, k tiles). */
static const transposed_case gpu_transposed_cases[] = {
    {WL_GEMM_TRANS_A | WL_GEMM_TRANS_B, {1023, 1025, 1027, 1029, 1031, 1033, 1.5, -0.5, 1, 0}},
    {WL_GEMM_TRANS_B, {2048, 2048, 2048, 0, 0, 0, 1.0, 0.0, 0, 0}},
    {WL_GEMM_TRANS_A, {1000, 2000, 600, 0, 0, 0, 1.0, 0.0, 0, 0}},
};

/* A CPU (PoCL, the cpu backend) adds one large shape that is a multiple of
 * no tile, within the test suite's time budget. */
static const gemm_case cpu_cases[] = {
    {1000, 751, 499, 0, 0, 0, 1.0, 0.0, 0, 0},
    {1531, 1283, 1031, 0, 0, 0, 1.0, 0.0, 0, 0},
};

/* A GPU takes the full test shapes. */
static const gemm_case gpu_cases[] = {
    {1024, 1024, 1024, 0, 0, 0, 1.0, 0.0, 0, 0},
    {2048, 2048, 2048, 0, 0, 0, 1.0, 0.0, 0, 0},
    {4096, 4096, 4096, 0, 0, 0, 1.0, 0.0, 0, 0},
    {8192, 8192, 8192, 0, 0, 0, 1.0, 0.0, 0, 0},
    {4000, 3001, 1999, 0, 0, 0, 1.0, 0.0, 0, 0},
    {4000, 4000, 4000, 0, 0, 0, 1.0, 0.0, 0, 0},
    {1, 4096, 4096, 0, 0, 0, 1.0, 0.0, 0, 0},
    {4096, 1, 4096, 0, 0, 0, 1.0, 0.0, 0, 0},
    {4096, 4096, 1, 0, 0, 0, 1.0, 0.0, 0, 0},
    {1023, 1025, 1027, 1029, 1031, 1033, 1.5, -0.5, 1, 0},
    /* More 128x256 tiles than twice the SMs of an H200, k not a multiple of
     * a k tile, C read: a persistent kernel's blocks walk several tiles. */
    {4100, 2100, 40, 0, 0, 0, 1.0, 0.5, 0, 0},
    /* The same with beta 0 and 16-byte rows (C through the copy engine where
     * a rung can): 33 tile rows, an odd count for the 2 x 1 clusters, each
     * of which walks several pairs; the last tile column (12 columns) has a
     * second B half wholly past n. */
    {4100, 2060, 40, 0, 0, 0, 1.0, 0.0, 0, 0},
    /* On 132 SMs, 272 tiles of 128x128 (2 resident: 8 past a wave) and 144
     * of 256x128 (12 past): the tail rungs split their last wave (3 chunks
     * of k), with padded rows, beta != 0 and every size odd. */
    {2175, 2047, 509, 2177, 2049, 2051, 1.0, -0.5, 0, 0},
};

static int add_cases(const gemm_case *cases, size_t count, wl_problem *problems, int used,
                     int capacity)
{
    for (size_t i = 0; i < count && used < capacity; i++) {
        const gemm_case *c = &cases[i];
        wl_problem *p = &problems[used++];
        memset(p, 0, sizeof *p);
        p->dim[0] = c->m;
        p->dim[1] = c->n;
        p->dim[2] = c->k;
        p->dims = 3;
        p->ld[0] = c->lda;
        p->ld[1] = c->ldb;
        p->ld[2] = c->ldc;
        p->alpha = c->alpha;
        p->beta = c->beta;
        p->dtype = WARPLAB_FLOAT32;
        p->misalign = (size_t)c->misalign;
        p->nan_input = c->nan_input;
    }
    return used;
}

static int add_transposed(const transposed_case *cases, size_t count, wl_problem *problems,
                          int used, int capacity)
{
    for (size_t i = 0; i < count; i++) {
        const int before = used;
        used = add_cases(&cases[i].shape, 1, problems, used, capacity);
        if (used > before)
            problems[before].variant = cases[i].variant;
    }
    return used;
}

static int gemm_test_problems(const warplab_device_info *device, wl_problem *problems, int capacity)
{
    int count = add_cases(common_cases, sizeof common_cases / sizeof common_cases[0], problems, 0,
                          capacity);
    count = add_transposed(transposed_cases, sizeof transposed_cases / sizeof transposed_cases[0],
                           problems, count, capacity);
    if (device && device->gpu) {
        count = add_transposed(gpu_transposed_cases,
                               sizeof gpu_transposed_cases / sizeof gpu_transposed_cases[0],
                               problems, count, capacity);
        return add_cases(gpu_cases, sizeof gpu_cases / sizeof gpu_cases[0], problems, count,
                         capacity);
    }
    return add_cases(cpu_cases, sizeof cpu_cases / sizeof cpu_cases[0], problems, count, capacity);
}

/* The shape set of `warplab bench gemm --shapes`, by class:
 * GEMV (m = 1, n = 1); small m, 2 to 64; small squares, 128 to 1024; LLM
 * projections (k or n of 4096, 11008, 14336); large k with small m and n;
 * tall-skinny; odd sizes; and one large square. m x n x k each. */
#define GEMM_SHAPE_SET                                                                             \
    "1x4096x4096,1x11008x4096,1x4096x14336,4096x1x4096,11008x1x4096,"                              \
    "2x4096x4096,4x4096x4096,8x4096x4096,16x4096x4096,32x4096x4096,64x4096x4096,"                  \
    "128x128x128,256x256x256,512x512x512,1024x1024x1024,"                                          \
    "128x11008x4096,512x4096x11008,256x14336x4096,512x4096x14336,2048x11008x4096,"                 \
    "64x64x65536,128x128x32768,256x256x16384,32x256x8192,"                                         \
    "65536x64x64,16384x128x128,4096x4096x64,8192x32x4096,"                                         \
    "1000x1000x1000,3001x2999x1001,777x555x333,17x3001x1999,4096x4096x4096"

const wl_ladder wl_gemm_ladder = {
    .name = "gemm",
    .title = "matrix multiply (seeds 000, 002)",
    .rungs = gemm_rungs,
    .rung_count = sizeof gemm_rungs / sizeof gemm_rungs[0],
    .make_problem = gemm_make_problem,
    .default_sizes_gpu = "4000x4000x4000,4096x4096x4096,8192x8192x8192",
    .default_sizes_cpu = "384",
    .describe = gemm_describe,
    .leading_size = gemm_leading_size,
    .buffers = gemm_buffers,
    .verify = verify_fp32,
    .bytes = compulsory_bytes,
    .flops = gemm_flops,
    .best_rung = "dispatch",
    .test_problems = gemm_test_problems,
    .rung_supports = gemm_rung_supports,
    .shape_set = GEMM_SHAPE_SET,
    .device_reference = wl_gemm_device_reference,
};

/* ------------------------------------------------------------------------ */
/* The lab's handle on the GEMM planner (include/warplab_lab.h): its rows by
 * name, and a row forced for the context's calls (src/ops/gemm.c).        */

const char *warplab_gemm_candidate_name(size_t index)
{
    size_t count = 0;
    const wl_gemm_candidate *rows = wl_gemm_candidates(&count);
    return index < count ? rows[index].name : NULL;
}

warplab_status warplab_gemm_force_candidate(warplab_context *context, const char *candidate)
{
    if (!context)
        return wl_api_no_context("warplab_gemm_force_candidate", "the context");
    wl_api_begin(context);
    return wl_api_end(context, "warplab_gemm_force_candidate",
                      wl_gemm_force_candidate(context, candidate));
}

/* The device reference (device_reference.h): the sampled double-precision check of
 * wl_gemm_verify, for the rungs verified by it on float problems. */
void wl_gemm_device_reference(const wl_rung *rung, const wl_problem *problem,
                              wl_reference_request *request)
{
    if (problem->dtype != WARPLAB_FLOAT32 || (problem->variant & WL_GEMM_C_INPUT_TYPE))
        return;
    static const struct {
        warplab_status (*verify)(const wl_problem *, const void *const *, wl_check *);
        wl_gemm_precision precision;
    } known[] = {{NULL, WL_GEMM_FP32},        {verify_fp32, WL_GEMM_FP32},
                 {verify_tf32, WL_GEMM_TF32}, {verify_tf32_any, WL_GEMM_TF32_ANY},
                 {verify_bf16, WL_GEMM_BF16}, {verify_fp16, WL_GEMM_FP16}};
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (rung->verify == known[i].verify) {
            request->kind = WL_REFERENCE_GEMM;
            request->precision = (int)known[i].precision;
            return;
        }
}
