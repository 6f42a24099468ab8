// group_prefix.cu — the grouped GEMM's walk from per-expert row counts (tcgemm/grouped.py; not a GEMM).
//
//   prefix[0] = 0,  prefix[z + 1] = prefix[z] + ceil(min(max(counts[z], 0), rows) / unit_rows)
//
// unit_rows: the rows of one of the GEMM's row tiles (BLOCK_M); rows: the padded M.
// contiguous (GROUP_ROWS = 2): `counts` holds the segments' ends instead (offsets, as torch._grouped_mm takes them),
// rows the tokens T; counts[z] = end[z] - end[z - 1] of the ends clamped to [0, T], and the bounds 0, end[0], ...,
// end[E - 1] follow the prefix (prefix[E + 1 ..]). The GEMM launched
// next reads the prefix after its programmatic-dependent-launch wait (kernels/include/group_rows.cuh). One CTA of
// 1024 threads scans 1024 experts a pass: a warp's inclusive scan by shuffles, then the warps' totals.
extern "C" __global__ void __launch_bounds__(1024) group_prefix(const int* __restrict__ counts, int groups, int rows,
                                                                int unit_rows, int* __restrict__ prefix,
                                                                int contiguous) {
    __shared__ int warp_total[32];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    int carry = 0;  // the passes before
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
        int x = (count + unit_rows - 1) / unit_rows;
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
        if (z < groups) prefix[z + 1] = carry + x + (warp > 0 ? warp_total[warp - 1] : 0);
        carry += warp_total[31];
        __syncthreads();  // (warp_total is rewritten by the next pass)
    }
    if (threadIdx.x == 0) prefix[0] = 0;
    if (threadIdx.x == 0 && contiguous) prefix[groups + 1] = 0;
}
