// group_prefix.cu — the grouped GEMM's walk from per-expert row counts (tcgemm/grouped.py; not a GEMM).
//
//   tiles[0] = 0,  tiles[z + 1] = tiles[z] + ceil(min(max(counts[z], 0), rows) / tile_rows)
//   units[0] = 0,  units[z + 1] = units[z] + ceil(min(max(counts[z], 0), rows) / (cluster_m tile_rows))
//
// tile_rows: the GEMM's BLOCK_M; cluster_m: the CTAs of a cluster along M (CTAS_M); rows: the padded M.
// contiguous (GROUP_ROWS = 2): `counts` holds the segments' ends instead (offsets, as torch._grouped_mm takes them),
// rows the tokens T; counts[z] = end[z] - end[z - 1] of the ends clamped to [0, T].
// Layout of `prefix` (ints): tiles[0 .. E]; contiguous only: the bounds 0, end[0], ..., end[E - 1]; units[0 .. E];
// then the walk the GEMM takes (kernels/include/group_rows.cuh: 0 by entry, 1 in pairs of row tiles): `walk` if
// it is 1 or 2, else the rule below.
// The GEMM launched next reads the prefix after its programmatic-dependent-launch wait. One CTA of 1024 threads
// scans 1024 experts a pass: a warp's inclusive scan by shuffles, then the warps' totals.

// The inclusive sum of x over the CTA's threads (and the pass's total in *total); every thread calls it.
__device__ __forceinline__ int cta_inclusive_scan(int x, int* warp_total, int* total) {
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
#pragma unroll
    for (int o = 1; o < 32; o *= 2) {
        const int y = __shfl_up_sync(0xffffffffu, x, o);
        if (lane >= o) x += y;
    }
    if (lane == 31) warp_total[warp] = x;
    __syncthreads();
    if (warp == 0) {
        int w = warp_total[lane];
#pragma unroll
        for (int o = 1; o < 32; o *= 2) {
            const int y = __shfl_up_sync(0xffffffffu, w, o);
            if (lane >= o) w += y;
        }
        warp_total[lane] = w;  // inclusive totals of warps 0 .. lane
    }
    __syncthreads();
    const int sum = x + (warp > 0 ? warp_total[warp - 1] : 0);
    *total = warp_total[31];
    __syncthreads();  // (warp_total is rewritten by the next scan)
    return sum;
}

extern "C" __global__ void __launch_bounds__(1024) group_prefix(const int* __restrict__ counts, int groups, int rows,
                                                                int tile_rows, int cluster_m, int* __restrict__ prefix,
                                                                int contiguous, int walk) {
    __shared__ int warp_total[32];
    int* tiles = prefix;
    int* units = prefix + (contiguous ? 2 * groups + 2 : groups + 1);
    int carry_tiles = 0, carry_units = 0;  // the passes before
    for (int base = 0; base < groups; base += 1024) {
        const int z = base + threadIdx.x;
        int count = 0;
        if (z < groups && contiguous) {
            const int end = min(max(counts[z], 0), rows), start = z > 0 ? min(max(counts[z - 1], 0), rows) : 0;
            count = max(end - start, 0);
            prefix[groups + 2 + z] = max(end, start);  // (a segment ending before its start: empty)
        } else if (z < groups) {
            count = min(max(counts[z], 0), rows);
        }
        int total;
        const int t = cta_inclusive_scan((count + tile_rows - 1) / tile_rows, warp_total, &total);
        if (z < groups) tiles[z + 1] = carry_tiles + t;
        carry_tiles += total;
        const int u = cta_inclusive_scan((count + tile_rows * cluster_m - 1) / (tile_rows * cluster_m), warp_total,
                                         &total);
        if (z < groups) units[z + 1] = carry_units + u;
        carry_units += total;
    }
    if (threadIdx.x == 0) {
        tiles[0] = units[0] = 0;
        if (contiguous) prefix[groups + 1] = 0;
        // The rule (kernels/include/group_rows.cuh): pairs wherever the walk by entry would compute row tiles past
        // an expert's tokens (pairs ran 0.98-1.27x the walk by entry, in one process:
        // 2026-11-27-h100-grouped-walk-ab-*-9eefc9e.json); where it would not, the two are the same walk.
        units[groups + 1] = walk == 1 ? 0 : walk == 2 ? 1 : (carry_units * cluster_m > carry_tiles ? 1 : 0);
    }
}
