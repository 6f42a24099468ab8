// sum_blocks.cu — the last pass of a reduce-scatter (tcgemm.distributed.fused): this rank's row block of the sum
// over ranks, out = sum over s = 0 .. world - 1 of part_s, where part_rank is the own partial product (`own`) and
// part_s for s != rank is what rank s pushed into slot s of this rank's inbox (`inbox + s * slot`).  Added in rank
// order in fp32 and rounded once: the same order on every rank and call, so the result repeats bitwise, and one
// rounding where adding the slots one by one into a 16-bit result would round W - 1 times.  One pass over the
// bytes, W + 1 block-sizes of them (the one-add-per-sender passes it replaces moved 3 (W - 1)).
//
// `landed` (or null): this rank's landed[world] flags, set by the peers' streams once their partial sums are in
// the inbox.  Each CTA's first thread waits for them (an acquire at system scope; the barrier then orders every
// thread's loads after it), and the inbox is read through L2 only (ld.global.cg: the peers' copies wrote it
// there), so the kernel can be enqueued right behind the GEMM: no stream wait between them.  A flag that never
// comes (a protocol bug, a peer gone) faults after ~10 s (a store to address 0, as the GEMMs' watchdog does:
// kernels/include/mbarrier.cuh) rather than hanging the GPU.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#ifndef ELEM
#define ELEM __nv_bfloat16
#endif
typedef ELEM elem;
constexpr int VEC = 16 / sizeof(elem);  // elements per 16-byte word

#include "elem_convert.cuh"

// Spin until *flag is nonzero (an acquire at `SYS` scope, else the GPU's), then return it; fault after ~10 s.
template <bool SYS>
__device__ __forceinline__ unsigned wait_flag(const unsigned* flag) {
    unsigned v = 0;
    unsigned long long start = 0, now = 0;
    while (true) {
        if constexpr (SYS) asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(flag) : "memory");
        else asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(flag) : "memory");
        if (v != 0u) return v;
        __nanosleep(256);
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
        if (start == 0) start = now;
        else if (now - start > 10000000000ull)
            asm volatile("st.global.u32 [%0], %1;" ::"l"(0ull), "r"(0) : "memory");
    }
}

// Thread 0 waits for every peer's landed flag; the barrier then orders every thread's loads after it.
__device__ __forceinline__ void wait_landed(const unsigned* landed, int world, int rank) {
    if (landed == nullptr) return;
    if (threadIdx.x == 0)
        for (int s = 0; s < world; ++s)
            if (s != rank) wait_flag<true>(landed + s);
    __syncthreads();
}

// out[i .. i + VEC) = the sum over ranks of part_s[i ...], in rank order, fp32, rounded once.
__device__ __forceinline__ void sum_vector(const elem* own, const elem* inbox, long long slot, int world, int rank,
                                           elem* out, long long i) {
    float sum[VEC];
#pragma unroll
    for (int j = 0; j < VEC; ++j) sum[j] = 0.0f;
    for (int s = 0; s < world; ++s) {
        const elem* part = s == rank ? own : inbox + s * slot;
        union {
            int4 word;
            elem e[VEC];
        } v;
        v.word = __ldcg(reinterpret_cast<const int4*>(part + i));
#pragma unroll
        for (int j = 0; j < VEC; ++j) sum[j] += to_f32(v.e[j]);
    }
    union {
        int4 word;
        elem e[VEC];
    } r;
#pragma unroll
    for (int j = 0; j < VEC; ++j) r.e[j] = from_f32<elem>(sum[j]);
    *reinterpret_cast<int4*>(out + i) = r.word;
}

// count elements; `vectors`: count is a multiple of VEC and every pointer (and slot's bytes) 16-byte aligned.
extern "C" __global__ void __launch_bounds__(256) sum_blocks(const elem* __restrict__ own, const elem* __restrict__ inbox,
                                                              long long slot, int world, int rank, elem* __restrict__ out,
                                                              long long count, int vectors, const unsigned* landed) {
    wait_landed(landed, world, rank);
    const long long stride = (long long)gridDim.x * blockDim.x;
    const long long first = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (vectors) {
        for (long long i = first; i < count / VEC; i += stride) sum_vector(own, inbox, slot, world, rank, out, i * VEC);
        return;
    }
    for (long long i = first; i < count; i += stride) {
        float sum = 0.0f;
        for (int s = 0; s < world; ++s) sum += to_f32(__ldcg((s == rank ? own : inbox + s * slot) + i));
        out[i] = from_f32<elem>(sum);
    }
}

// The same sum, under the own block's GEMM (tcgemm.distributed.pushes; the GEMM is a PEER_ROWS = 3 build,
// kernels/include/peer_rows.cuh, which appends each consumer's stored rows to `queue` as its TMA stores complete).
// Launched right behind that GEMM with programmatic dependent launch, so its CTAs are placed as the GEMM's CTAs
// finish their last tiles (while the rest of the GEMM's last round still runs) and each claims queue entries in
// order: the entry's rows (`height` x `width` from its first row and column, clipped at `rows` and `n`) are
// summed as sum_blocks sums them, the same bits.  Entries are claimed in the order the tiles were stored, so the
// first claims are long done when the first sum CTAs arrive; only the last round's tiles are summed after the
// GEMM.  The last claims reset the queue for the next call (the append count once every entry has been seen: no
// GEMM CTA appends after that; the claim count by the last CTA to claim past the end).  n: a multiple of VEC,
// every pointer and the slot's bytes 16-byte aligned (the host checks).
extern "C" __global__ void __launch_bounds__(256) sum_queue(const elem* __restrict__ own, const elem* __restrict__ inbox,
                                                             long long slot, int world, int rank, elem* __restrict__ out,
                                                             int rows, int n, int height, int width, unsigned* queue,
                                                             int total, const unsigned* landed) {
    constexpr int QUEUE_HEAD = 4;  // (peer_rows.cuh)
    __shared__ int claimed;
    __shared__ unsigned entry;
    wait_landed(landed, world, rank);
    while (true) {
        if (threadIdx.x == 0) {
            const int pos = int(atomicAdd(queue + 1, 1u));
            unsigned e = 0;
            if (pos < total) {
                e = wait_flag<false>(queue + QUEUE_HEAD + pos);
                queue[QUEUE_HEAD + pos] = 0u;
                if (atomicAdd(queue + 2, 1u) == unsigned(total - 1)) {  // every entry seen: the GEMM appends no more
                    queue[0] = 0u;
                    queue[2] = 0u;
                }
            } else if (pos == total + int(gridDim.x) - 1) {  // the last claim of all: no CTA claims after it
                queue[1] = 0u;
            }
            claimed = pos;
            entry = e;
        }
        __syncthreads();
        const int pos = claimed;
        const unsigned e = entry;
        __syncthreads();  // (both read before thread 0 writes the next claim)
        if (pos >= total) return;
        const int r0 = int((e >> 14) & 0x1ffffu) * 8, c0 = int(e & 0x3fffu) * 8;
        const int h = min(height, rows - r0), per_row = (min(width, n - c0)) / VEC;
        for (int i = threadIdx.x; i < h * per_row; i += blockDim.x)
            sum_vector(own, inbox, slot, world, rank, out, (long long)(r0 + i / per_row) * n + c0 + (i % per_row) * VEC);
    }
}
