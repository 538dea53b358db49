/* The shapes the pipelined kernel runs at: the ladder's rungs, the sm_90
 * alternatives shown beside them, and the configuration warplab_gemm() uses
 * (tuned_shape). One list, included by src/cuda/gemm.cu and by the CPU
 * emulation test, so a shape changes in one place. */
#ifndef WARPLAB_GEMM_PIPELINED_SHAPES_CUH
#define WARPLAB_GEMM_PIPELINED_SHAPES_CUH

#include "pipelined_kernel.cuh"

/* warplab:rung gemm double_buffered warptile tuned tuned_128x128 tuned_256x128 frag_128x256
 * frag_128x128 frag_128x128_w64 frag_128x128_k8 frag_256x128 frag_256x128_s6 */
/* tile_shape<BM, BN, BK, WM, WN, TM, TN, STAGES, MIN_BLOCKS, GROUP_M, FRAGMENTS> */

/* double_buffered: the conflict-free block-wide mapping (16 x 16 threads,
 * 2 x 2 blocks of 4 x 4), now fed by a 3-stage cp.async ring. */
typedef tile_shape<128, 128, 8, 128, 128, 8, 8, 3, 2, 0> double_buffered_shape;
/* warptile: 8 warps, each a 64 x 32 piece (8 x 4 lanes of 2 x 2 blocks of
 * 4 x 4). */
typedef tile_shape<128, 128, 8, 64, 32, 8, 8, 3, 2, 0> warptile_shape;

/* The sm_90 shapes compared in one run (off the ladder but tuned itself). */
/* 128 x 256 x 16, warps of 64 x 64 (8 x 16 outputs a thread), 4 stages, one
 * block an SM, tiles visited in bands of 8 rows for L2. */
typedef tile_shape<128, 256, 16, 64, 64, 8, 16, 4, 1, 8> sm90_128x256_shape;
typedef tile_shape<128, 128, 16, 64, 32, 8, 8, 4, 2, 8> tuned_128x128_shape;
typedef tile_shape<256, 128, 16, 64, 64, 16, 8, 4, 1, 8> tuned_256x128_shape;

/* The same kernel with FRAGMENTS (register double-buffered fragments, the
 * barrier a step early, copies spread over the tile; see gemm_pipelined),
 * at the shapes worth comparing:
 * - frag_128x256: tuned's shape, to isolate the loop change;
 * - frag_128x128: 8 x 8 a thread, two 256-thread blocks an SM (16 warps);
 * - frag_128x128_w64: 4 warps of 64 x 64 (8 x 16 a thread), two 128-thread
 *   blocks an SM: tuned's FMA:LDS ratio and warp count, but two blocks
 *   whose barriers do not wait on each other;
 * - frag_128x128_k8: BK 8 (a 10 KB loop body, half of BK 16's), 4 stages;
 * - frag_256x128: the best shape at 4000^3, with FRAGMENTS;
 * - frag_256x128_s6: 256 x 128 tiles of eight 64 x 64 warp tiles at
 *   8 x 16 a thread (frag_256x128 has 16 x 8), 6 stages, one 256-thread
 *   block an SM: the best of 20 variants measured on an H200, what
 *   warplab_gemm() uses (docs/DECISIONS.md, "The early barrier, 256x128
 *   tiles, 6 stages, is the best FP32 kernel"). */
typedef tile_shape<128, 256, 16, 64, 64, 8, 16, 4, 1, 8, true> frag_128x256_shape;
typedef tile_shape<128, 128, 16, 64, 32, 8, 8, 4, 2, 8, true> frag_128x128_shape;
typedef tile_shape<128, 128, 16, 64, 64, 8, 16, 4, 2, 8, true> frag_128x128_w64_shape;
typedef tile_shape<128, 128, 8, 64, 32, 8, 8, 4, 2, 8, true> frag_128x128_k8_shape;
typedef tile_shape<256, 128, 16, 64, 64, 16, 8, 4, 1, 8, true> frag_256x128_shape;
typedef tile_shape<256, 128, 16, 64, 64, 8, 16, 6, 1, 8, true> frag_256x128_s6_shape;

/* Small tiles for problems of too few 256 x 128 tiles to fill the SMs (the
 * dispatcher's choice, with or without split-K): 4 warps of 32 x 32 (4 x 8
 * a thread), several blocks an SM.
 * - tile_64x64: small squares and few-tile problems;
 * - tile_32x128: m of 17 to 32 (and small m in general), no rows of the
 *   tile wasted, B's rows read in 512-byte pieces. */
typedef tile_shape<64, 64, 16, 32, 32, 4, 8, 4, 4, 8, true> tile_64x64_shape;
typedef tile_shape<32, 128, 16, 32, 32, 4, 8, 4, 4, 8, true> tile_32x128_shape;
/* - tile_128x32: its transpose in shape, for n of 17 to 64 (tall-skinny);
 * - tile_64x128: 4 warps of 64 x 32 (8 x 8 a thread, tuned's FMA : LDS
 *   ratio), for m of 33 to 64 and mid-size problems of few large tiles. */
typedef tile_shape<128, 32, 16, 32, 32, 4, 8, 4, 4, 8, true> tile_128x32_shape;
typedef tile_shape<64, 128, 16, 64, 32, 8, 8, 4, 3, 8, true> tile_64x128_shape;
/* - tile_32x64: 4 warps of 32 x 16 (4 x 4 a thread): half tile_64x64's
 *   tile, so twice the blocks, and a quarter of the FMAs a thread between
 *   barriers. Where the tiles make about one wave every block is alone
 *   with its latency (a barrier and a copy wait each k tile); more, shorter
 *   warps hide it (H100, warplab bench, each tile at its best split:
 *   777x555x333 23.6 -> 20.2 us, 256^3 12.2 -> 9.5, 513x1025x257 26.7 ->
 *   21.6) and lose where the SMs are full (1000^3: 84 us against
 *   tile_64x64's 74 and the dispatcher's tile_64x128, 68). */
typedef tile_shape<32, 64, 16, 32, 16, 4, 4, 4, 4, 8, true> tile_32x64_shape;

/* warplab:end */
/* What the tuned rung and warplab_gemm() run: promote a shape here. */
typedef sm90_128x256_shape tuned_shape;

#endif
