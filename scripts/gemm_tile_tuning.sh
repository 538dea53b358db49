#!/bin/bash
# The 16-bit tile model's tuning set (src/kernels/gemm_tiles16.c: wgmma_model's
# wave count, the stream-K shares' wgmma_sk_model): fixed shapes, BF16 in, FP32
# out, op N, N, through warplab_gemm_ex (the ex_bf16 rung) against
# cublasGemmEx (cublas_ex_bf16) in the same run. Fitting happens here; the
# judging is `warplab bench gemm --grid` on seeds these shapes never came
# from (src/lab/gemm_grid.c).
#
#   prefill, partial last waves (k <= 8192, where stream-K may take them):
#     4500x1024x4096 2500x4096x4096 3000x6144x4096 1800x5120x4096, and two
#     whose waves are nearly whole: 7000x1024x4096 1500x11008x8192
#   decode, one row of tiles past one wave of SMs (m 16-32, k 8192-16384):
#     16x4608x14336 24x5120x12288 20x5632x14336 28x4864x11008 32x5376x14336
#     24x9216x8192, and 16x6144x14336 (one wave)
#   rows not 16-byte aligned (odd k or n: the operands re-strided or copied,
#   or read by mma.sync element by element), each 16-bit path forced beside
#   the model's pick (ex16_mma, ex16_wgmma, ex16_tma): squares 301^3 455^3
#   777^3, tall-skinny 40001x180x2001, large k 99x250x30001
#   odd k (K-major rows off 16 bytes: the operands re-strided before the
#   wgmma kernel today), every 16-bit cell of each shape as the grid runs it
#   (N,N and N,T, BF16 and FP16, FP32 and the input type out) through
#   scripts/gemm_grid_timing.cu, the fitting set for any change to how such
#   operands are read (the grid's seeds judge it):
#     tall-skinny 40001x180x2001 45001x32x2501 30001x72x1999 50001x130x1501
#     20011x256x3003; large k 99x250x30001 150x61x40001 333x411x17001
#     64x200x50001; squares 75^3 123^3 199^3 301^3 455^3 777^3
#   small side 10-16 (ex16_thin's thin_bandwidth and thin_y_strided: the big
#   operand's rows on 16, 8 and 4 bytes), ex16_thin forced beside the model's
#   pick: 50000x16x1024 45000x12x2020 37000x10x1030 12x4096x4096
#   16x11008x4096 10x6144x2020 (the fit also timed N,T, B stored n x k, with
#   scripts/gemm_grid_timing.cu on an experiment build)
#
# Usage: [PART=tiles|unaligned|oddk|thin] scripts/gemm_tile_tuning.sh WARPLAB [LABEL]
# (PART=oddk: WARPLAB names a gemm_grid_timing binary)
# (the bench's tables: each rung's median beside cuBLAS's, and the plan
# warplab_gemm_ex describes).
set -u
WARPLAB=${1:?usage: gemm_tile_tuning.sh WARPLAB [LABEL]}
LABEL=${2:-$(basename "$WARPLAB")}
SHAPES=4500x1024x4096,2500x4096x4096,3000x6144x4096,1800x5120x4096,7000x1024x4096,1500x11008x8192
SHAPES=$SHAPES,16x4608x14336,24x5120x12288,20x5632x14336,28x4864x11008,32x5376x14336,24x9216x8192
SHAPES=$SHAPES,16x6144x14336
UNALIGNED=301x301x301,455x455x455,777x777x777,40001x180x2001,99x250x30001
THIN=50000x16x1024,45000x12x2020,37000x10x1030,12x4096x4096,16x11008x4096,10x6144x2020
echo "# gemm_tile_tuning ($LABEL): $("$WARPLAB" --version 2>/dev/null | head -1)"
case "${PART:-all}" in
all | tiles)
    "$WARPLAB" bench gemm --rung ex_bf16,cublas_ex_bf16 --size "$SHAPES" --repeat 20 ;;
esac
ODD_K="40001x180x2001 45001x32x2501 30001x72x1999 50001x130x1501 20011x256x3003"
ODD_K="$ODD_K 99x250x30001 150x61x40001 333x411x17001 64x200x50001"
ODD_K="$ODD_K 75x75x75 123x123x123 199x199x199 301x301x301 455x455x455 777x777x777"
if [ "${PART:-all}" = oddk ]; then
    # shellcheck disable=SC2086 # the shapes are one argument each
    exec "$WARPLAB" 1 fp16,bf16 $ODD_K
fi
case "${PART:-all}" in
all | unaligned)
    "$WARPLAB" bench gemm --rung ex_bf16,ex16_mma,ex16_wgmma,ex16_tma,cublas_ex_bf16 \
        --size "$UNALIGNED" --repeat 20 ;;
esac
case "${PART:-all}" in
all | thin)
    "$WARPLAB" bench gemm --rung ex_bf16,ex16_thin,cublas_ex_bf16 --size "$THIN" --repeat 20 ;;
esac
