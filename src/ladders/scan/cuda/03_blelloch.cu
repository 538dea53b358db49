/* Rung blelloch (GPU Gems 3, ch. 39.2.2: a work-efficient parallel scan,
 * after Blelloch 1990).
 *
 * Over hillis_steele: O(n) operations instead of O(n log n). 512 threads,
 * two elements each, scan a 1024-element tile in one shared-memory array:
 * the up-sweep (a reduction tree) leaves partial sums at the tree's nodes,
 * the root is set to the identity, and the down-sweep swaps and combines
 * its way back down, leaving each element's exclusive prefix (the inclusive
 * one is that op the element). 2 log n steps, each with a barrier; the
 * tree's strided indices (2^d apart) fall into few of the 32 banks, so
 * accesses are replayed (conflict_free removes that). Still one block,
 * walking the tiles with a carry. */
#include "scan_rungs.cuh"

namespace
{

constexpr unsigned BL_THREADS = 512;
constexpr unsigned BL_TILE = 2 * BL_THREADS;

/* The shared-memory index of tree slot i: itself here; conflict_free pads
 * one word every 32 (GPU Gems 3, Example 39-3's CONFLICT_FREE_OFFSET). */
template <bool PADDED> __device__ inline unsigned tree_slot(unsigned i)
{
    return PADDED ? i + (i >> 5) : i;
}

template <typename T, typename Op, bool PADDED>
__global__ void __launch_bounds__(BL_THREADS)
    blelloch_kernel(const T *in, T *out, size_t n, bool exclusive)
{
    __shared__ T tree[BL_TILE + (PADDED ? BL_TILE / 32 : 0)];
    __shared__ T total;
    const unsigned tid = threadIdx.x;
    T carry = scan_identity<T, Op>();
    for (size_t base = 0; base < n; base += BL_TILE) {
        const unsigned a = tid, b = tid + BL_THREADS;
        const T xa = base + a < n ? in[base + a] : scan_identity<T, Op>();
        const T xb = base + b < n ? in[base + b] : scan_identity<T, Op>();
        tree[tree_slot<PADDED>(a)] = xa;
        tree[tree_slot<PADDED>(b)] = xb;
        /* Up-sweep: node pairs 2^d apart, half as many each level. */
        unsigned offset = 1;
        for (unsigned active = BL_TILE / 2; active > 0; active >>= 1) {
            __syncthreads();
            if (tid < active) {
                const unsigned left = offset * (2 * tid + 1) - 1,
                               right = offset * (2 * tid + 2) - 1;
                tree[tree_slot<PADDED>(right)] =
                    Op::apply(tree[tree_slot<PADDED>(left)], tree[tree_slot<PADDED>(right)]);
            }
            offset <<= 1;
        }
        __syncthreads();
        if (tid == 0) {
            total = tree[tree_slot<PADDED>(BL_TILE - 1)];
            tree[tree_slot<PADDED>(BL_TILE - 1)] = scan_identity<T, Op>();
        }
        /* Down-sweep: the left child takes the parent's prefix, the right
         * child the parent's prefix op the left child's sum. */
        for (unsigned active = 1; active < BL_TILE; active <<= 1) {
            offset >>= 1;
            __syncthreads();
            if (tid < active) {
                const unsigned left = offset * (2 * tid + 1) - 1,
                               right = offset * (2 * tid + 2) - 1;
                const T left_sum = tree[tree_slot<PADDED>(left)];
                tree[tree_slot<PADDED>(left)] = tree[tree_slot<PADDED>(right)];
                tree[tree_slot<PADDED>(right)] =
                    Op::apply(tree[tree_slot<PADDED>(right)], left_sum);
            }
        }
        __syncthreads();
        const T ea = Op::apply(carry, tree[tree_slot<PADDED>(a)]);
        const T eb = Op::apply(carry, tree[tree_slot<PADDED>(b)]);
        if (base + a < n)
            out[base + a] = exclusive ? ea : Op::apply(ea, xa);
        if (base + b < n)
            out[base + b] = exclusive ? eb : Op::apply(eb, xb);
        carry = Op::apply(carry, total);
        __syncthreads();
    }
}

template <bool PADDED> struct BlellochOf {
    template <typename T, typename Op> struct Rung {
        static warplab_status launch(wl_backend *backend, const wl_launch *launch, void *)
        {
            const size_t n = wl_launch_count(launch);
            if (n == 0)
                return WARPLAB_OK;
            blelloch_kernel<T, Op, PADDED><<<1, BL_THREADS, 0, wl_cuda_stream(backend)>>>(
                scan_input<T>(launch), scan_output<T>(launch), n, scan_exclusive(launch));
            return WL_CUDA_LAUNCHED(backend, PADDED ? "scan conflict_free" : "scan blelloch");
        }
    };
};

template <typename T, typename Op> using Blelloch = BlellochOf<false>::Rung<T, Op>;

const wl_impl blelloch_impl = {
    .ladder = "scan", .rung = "blelloch", .launch = scan_launch_rung<Blelloch>};

} // namespace
