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

// count elements; `vectors`: count is a multiple of VEC and every pointer (and slot's bytes) 16-byte aligned.
extern "C" __global__ void __launch_bounds__(256) sum_blocks(const elem* __restrict__ own, const elem* __restrict__ inbox,
                                                              long long slot, int world, int rank, elem* __restrict__ out,
                                                              long long count, int vectors, const unsigned* landed) {
    if (landed != nullptr) {
        if (threadIdx.x == 0) {
            for (int s = 0; s < world; ++s) {
                if (s == rank) continue;
                unsigned v = 0;
                unsigned long long start = 0, now = 0;
                while (true) {
                    asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(landed + s) : "memory");
                    if (v != 0u) break;
                    __nanosleep(256);
                    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
                    if (start == 0) start = now;
                    else if (now - start > 10000000000ull)
                        asm volatile("st.global.u32 [%0], %1;" ::"l"(0ull), "r"(0) : "memory");
                }
            }
        }
        __syncthreads();
    }
    const long long stride = (long long)gridDim.x * blockDim.x;
    const long long first = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (vectors) {
        for (long long i = first; i < count / VEC; i += stride) {
            float sum[VEC];
#pragma unroll
            for (int j = 0; j < VEC; ++j) sum[j] = 0.0f;
            for (int s = 0; s < world; ++s) {
                const elem* part = s == rank ? own : inbox + s * slot;
                union {
                    int4 word;
                    elem e[VEC];
                } v;
                v.word = __ldcg(reinterpret_cast<const int4*>(part) + i);
#pragma unroll
                for (int j = 0; j < VEC; ++j) sum[j] += to_f32(v.e[j]);
            }
            union {
                int4 word;
                elem e[VEC];
            } r;
#pragma unroll
            for (int j = 0; j < VEC; ++j) r.e[j] = from_f32<elem>(sum[j]);
            reinterpret_cast<int4*>(out)[i] = r.word;
        }
        return;
    }
    for (long long i = first; i < count; i += stride) {
        float sum = 0.0f;
        for (int s = 0; s < world; ++s) sum += to_f32(__ldcg((s == rank ? own : inbox + s * slot) + i));
        out[i] = from_f32<elem>(sum);
    }
}
