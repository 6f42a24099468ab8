// stream_read.cu — a read-only streaming kernel: the bandwidth a GEMM that streams its weight once could
// reach (tools/decode_step.py's reference; not a GEMM).  Every 16-byte word is loaded once, evict-first
// (ld.global.cs), four independent loads in flight per thread; the words are folded with XOR and written
// only under a test that never passes for random data, so the loads cannot be dropped and nothing but
// the one reduction's register traffic is added to the reads.
extern "C" __global__ void __launch_bounds__(512) stream_read(const int4* __restrict__ words, long long count,
                                                               int* sink) {
    const long long stride = (long long)gridDim.x * blockDim.x;
    int acc = 0;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < count; i += 4 * stride) {
        int4 v[4];
#pragma unroll
        for (int j = 0; j < 4; ++j) v[j] = i + j * stride < count ? __ldcs(words + i + j * stride) : make_int4(0, 0, 0, 0);
#pragma unroll
        for (int j = 0; j < 4; ++j) acc ^= v[j].x ^ v[j].y ^ v[j].z ^ v[j].w;
    }
    if (acc == 0x5eed1234) sink[0] = acc;
}
