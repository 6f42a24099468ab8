// wgmma_ops.cuh — the wgmma instructions, one wrapper per input type and width N (sm_90a).  GENERATED
// by tools/gen_wgmma_ops.py; edit the generator, not this file.  Included by wgmma.cuh (the descriptors,
// fences and the accumulator layout are there); include that one.
//
//   Wgmma<N, BF16, TRANS_A, TRANS_B>   f32 += f16/bf16, m64nNk16; TRANS_* = 1: an MN-major operand.
//                                      N = 48 ... 256 for the CTA tiles (80 ... 160: whole waves of
//                                      tiles at N = 768, 2304), 8, 16, 32 for the few
//                                      tokens of the swap-AB decode kernel (hopper/05_swap_ab_stream_k.cu)
//   WgmmaTf32<N>  f32 += tf32 x tf32, m64nNk8    (both operands K-major: tf32, s8 and fp8 have no
//   WgmmaS8<N>    s32 += s8 x s8, m64nNk32        transpose mode; tf32's mma_rs takes A from registers,
//                                                 which any layout in shared memory can fill)
//   WgmmaE4m3<N>, WgmmaE5m2<N>   f32 += fp8 x fp8, m64nNk32 (8 ... 64: the decode kernel's tokens)
//
// Every instruction reads 32 bytes of k per row, so with 128-byte swizzled K-major tiles the
// descriptors are the same for every type: start address + 32 bytes per k step, 8-row groups SBO =
// 1024 bytes apart (wgmma_desc_k_major in wgmma.cuh).  The accumulator fragment is the same for every
// type too (wgmma.cuh): register i of lane l in warp w of the warpgroup holds row 16 w + l / 4 +
// 8 ((i / 2) % 2), column 8 (i / 4) + 2 (l % 4) + i % 2.  s8 accumulates into int registers.
//
// tf32: the instruction reads fp32 bit patterns from shared memory and uses only their top 19 bits
// (sign, exponent, 10 mantissa bits): the low 13 bits are ignored, i.e. the inputs are truncated toward
// zero rather than rounded as cvt.rna.tf32.f32 would.
#pragma once

// Keep the compiler from moving accumulator reads or writes across a wgmma
// wait (float and int accumulators).
template <int N>
__device__ __forceinline__ void wgmma_fence_accumulators(float (&d)[N]) {
#pragma unroll
    for (int i = 0; i < N; ++i) asm volatile("" : "+f"(d[i])::"memory");
}
template <int N>
__device__ __forceinline__ void wgmma_fence_accumulators(int (&d)[N]) {
#pragma unroll
    for (int i = 0; i < N; ++i) asm volatile("" : "+r"(d[i])::"memory");
}

// Wgmma<Kind><N>::mma(d, desc_a, desc_b, scale_d): D(64 x N) += A(64 x k) B(k x N) from shared memory;
// scale_d == 0 overwrites D instead.
template <int N> struct WgmmaTf32;
template <int N> struct WgmmaS8;
template <int N> struct WgmmaE4m3;
template <int N> struct WgmmaE5m2;

template <bool BF16, int TRANS_A, int TRANS_B>
struct Wgmma<8, BF16, TRANS_A, TRANS_B> {
    static __device__ __forceinline__ void mma(float (&d)[4], unsigned long long desc_a,
                                               unsigned long long desc_b, int scale_d) {
        if constexpr (BF16)
            asm volatile(
                "{\n.reg .pred p;\nsetp.ne.b32 p, %6, 0;\n"
                "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 "
                "{"
                "%0, %1, %2, %3"
                "}, %4, %5, p, 1, 1, %7, %8;\n}\n"
                : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(TRANS_A), "n"(TRANS_B));
        else
            asm volatile(
                "{\n.reg .pred p;\nsetp.ne.b32 p, %6, 0;\n"
                "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 "
                "{"
                "%0, %1, %2, %3"
                "}, %4, %5, p, 1, 1, %7, %8;\n}\n"
                : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(TRANS_A), "n"(TRANS_B));
    }
};

template <bool BF16, int TRANS_A, int TRANS_B>
struct Wgmma<16, BF16, TRANS_A, TRANS_B> {
    static __device__ __forceinline__ void mma(float (&d)[8], unsigned long long desc_a,
                                               unsigned long long desc_b, int scale_d) {
        if constexpr (BF16)
            asm volatile(
                "{\n.reg .pred p;\nsetp.ne.b32 p, %10, 0;\n"
                "wgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16 "
                "{"
                "%0, %1, %2, %3, %4, %5, %6, %7"
                "}, %8, %9, p, 1, 1, %11, %12;\n}\n"
                : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]),
                  "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7])
                : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(TRANS_A), "n"(TRANS_B));
        else
            asm volatile(
                "{\n.reg .pred p;\nsetp.ne.b32 p, %10, 0;\n"
                "wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 "
                "{"
                "%0, %1, %2, %3, %4, %5, %6, %7"
                "}, %8, %9, p, 1, 1, %11, %12;\n}\n"
                : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]),
                  "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7])
                : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(TRANS_A), "n"(TRANS_B));
    }
};

template <bool BF16, int TRANS_A, int TRANS_B>
struct Wgmma<32, BF16, TRANS_A, TRANS_B> {
    static __device__ __forceinline__ void mma(float (&d)[16], unsigned long long desc_a,
                                               unsigned long long desc_b, int scale_d) {
        if constexpr (BF16)
            asm volatile(
                "{\n.reg .pred p;\nsetp.ne.b32 p, %18, 0;\n"
                "wgmma.mma_async.sync.aligned.m64n32k16.f32.bf16.bf16 "
                "{"
                "%0, %1, %2, %3, %4, %5, %6, %7,"
                " %8, %9, %10, %11, %12, %13, %14, %15"
                "}, %16, %17, p, 1, 1, %19, %20;\n}\n"
                : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]),
                  "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                  "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15])
                : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(TRANS_A), "n"(TRANS_B));
        else
            asm volatile(
                "{\n.reg .pred p;\nsetp.ne.b32 p, %18, 0;\n"
                "wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16 "
                "{"
                "%0, %1, %2, %3, %4, %5, %6, %7,"
                " %8, %9, %10, %11, %12, %13, %14, %15"
                "}, %16, %17, p, 1, 1, %19, %20;\n}\n"
                : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]),
                  "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                  "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15])
                : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(TRANS_A), "n"(TRANS_B));
    }
};

template <bool BF16, int TRANS_A, int TRANS_B>
struct Wgmma<48, BF16, TRANS_A, TRANS_B> {
    static __device__ __forceinline__ void mma(float (&d)[24], unsigned long long desc_a,
                                               unsigned long long desc_b, int scale_d) {
        if constexpr (BF16)
            asm volatile(
                "{\n.reg .pred p;\nsetp.ne.b32 p, %26, 0;\n"
                "wgmma.mma_async.sync.aligned.m64n48k16.f32.bf16.bf16 "
                "{"
                "%0, %1, %2, %3, %4, %5, %6, %7,"
                " %8, %9, %10, %11, %12, %13, %14, %15,"
                " %16, %17, %18, %19, %20, %21, %22, %23"
                "}, %24, %25, p, 1, 1, %27, %28;\n}\n"
                : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]),
                  "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                  "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]),
                  "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23])
                : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(TRANS_A), "n"(TRANS_B));
        else
            asm volatile(
                "{\n.reg .pred p;\nsetp.ne.b32 p, %26, 0;\n"
                "wgmma.mma_async.sync.aligned.m64n48k16.f32.f16.f16 "
                "{"
                "%0, %1, %2, %3, %4, %5, %6, %7,"
                " %8, %9, %10, %11, %12, %13, %14, %15,"
                " %16, %17, %18, %19, %20, %21, %22, %23"
                "}, %24, %25, p, 1, 1, %27, %28;\n}\n"
                : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]),
                  "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                  "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]),
                  "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23])
                : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(TRANS_A), "n"(TRANS_B));
    }
};

template <bool BF16, int TRANS_A, int TRANS_B>
struct Wgmma<64, BF16, TRANS_A, TRANS_B> {
    static __device__ __forceinline__ void mma(float (&d)[32], unsigned long long desc_a,
                                               unsigned long long desc_b, int scale_d) {
        if constexpr (BF16)
            asm volatile(
                "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
                "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 "
                "{"
                "%0, %1, %2, %3, %4, %5, %6, %7,"
                " %8, %9, %10, %11, %12, %13, %14, %15,"
                " %16, %17, %18, %19, %20, %21, %22, %23,"
                " %24, %25, %26, %27, %28, %29, %30, %31"
                "}, %32, %33, p, 1, 1, %35, %36;\n}\n"
                : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]),
                  "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                  "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]),
                  "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
                  "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
                : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(TRANS_A), "n"(TRANS_B));
        else
            asm volatile(
                "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
                "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 "
                "{"
                "%0, %1, %2, %3, %4, %5, %6, %7,"
                " %8, %9, %10, %11, %12, %13, %14, %15,"
                " %16, %17, %18, %19, %20, %21, %22, %23,"
                " %24, %25, %26, %27, %28, %29, %30, %31"
                "}, %32, %33, p, 1, 1, %35, %36;\n}\n"
                : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]),
                  "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                  "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]),
                  "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
                  "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
                : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(TRANS_A), "n"(TRANS_B));
    }
};

template <bool BF16, int TRANS_A, int TRANS_B>
struct Wgmma<80, BF16, TRANS_A, TRANS_B> {
    static __device__ __forceinline__ void mma(float (&d)[40], unsigned long long desc_a,
                                               unsigned long long desc_b, int scale_d) {
        if constexpr (BF16)
            asm volatile(
                "{\n.reg .pred p;\nsetp.ne.b32 p, %42, 0;\n"
                "wgmma.mma_async.sync.aligned.m64n80k16.f32.bf16.bf16 "
                "{"
                "%0, %1, %2, %3, %4, %5, %6, %7,"
                " %8, %9, %10, %11, %12, %13, %14, %15,"
                " %16, %17, %18, %19, %20, %21, %22, %23,"
                " %24, %25, %26, %27, %28, %29, %30, %31,"
                " %32, %33, %34, %35, %36, %37, %38, %39"
                "}, %40, %41, p, 1, 1, %43, %44;\n}\n"
                : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]),
                  "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                  "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]),
                  "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
                  "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
                  "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),
                  "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39])
                : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(TRANS_A), "n"(TRANS_B));
        else
            asm volatile(
                "{\n.reg .pred p;\nsetp.ne.b32 p, %42, 0;\n"
                "wgmma.mma_async.sync.aligned.m64n80k16.f32.f16.f16 "
                "{"
                "%0, %1, %2, %3, %4, %5, %6, %7,"
                " %8, %9, %10, %11, %12, %13, %14, %15,"
                " %16, %17, %18, %19, %20, %21, %22, %23,"
                " %24, %25, %26, %27, %28, %29, %30, %31,"
                " %32, %33, %34, %35, %36, %37, %38, %39"
                "}, %40, %41, p, 1, 1, %43, %44;\n}\n"
                : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]),
                  "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                  "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]),
                  "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
                  "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
                  "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),
                  "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39])
                : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(TRANS_A), "n"(TRANS_B));
    }
};

template <bool BF16, int TRANS_A, int TRANS_B>
struct Wgmma<96, BF16, TRANS_A, TRANS_B> {
    static __device__ __forceinline__ void mma(float (&d)[48], unsigned long long desc_a,
                                               unsigned long long desc_b, int scale_d) {
        if constexpr (BF16)
            asm volatile(
                "{\n.reg .pred p;\nsetp.ne.b32 p, %50, 0;\n"
                "wgmma.mma_async.sync.aligned.m64n96k16.f32.bf16.bf16 "
                "{"
                "%0, %1, %2, %3, %4, %5, %6, %7,"
                " %8, %9, %10, %11, %12, %13, %14, %15,"
                " %16, %17, %18, %19, %20, %21, %22, %23,"
                " %24, %25, %26, %27, %28, %29, %30, %31,"
                " %32, %33, %34, %35, %36, %37, %38, %39,"
                " %40, %41, %42, %43, %44, %45, %46, %47"
                "}, %48, %49, p, 1, 1, %51, %52;\n}\n"
                : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]),
                  "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                  "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]),
                  "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
                  "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
                  "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),
                  "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
                  "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]),
                  "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47])
                : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(TRANS_A), "n"(TRANS_B));
        else
            asm volatile(
                "{\n.reg .pred p;\nsetp.ne.b32 p, %50, 0;\n"
                "wgmma.mma_async.sync.aligned.m64n96k16.f32.f16.f16 "
                "{"
                "%0, %1, %2, %3, %4, %5, %6, %7,"
                " %8, %9, %10, %11, %12, %13, %14, %15,"
                " %16, %17, %18, %19, %20, %21, %22, %23,"
                " %24, %25, %26, %27, %28, %29, %30, %31,"
                " %32, %33, %34, %35, %36, %37, %38, %39,"
                " %40, %41, %42, %43, %44, %45, %46, %47"
                "}, %48, %49, p, 1, 1, %51, %52;\n}\n"
                : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]),
                  "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                  "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]),
                  "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
                  "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
                  "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),
                  "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
                  "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]),
                  "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47])
                : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(TRANS_A), "n"(TRANS_B));
    }
};

template <bool BF16, int TRANS_A, int TRANS_B>
struct Wgmma<104, BF16, TRANS_A, TRANS_B> {
    static __device__ __forceinline__ void mma(float (&d)[52], unsigned long long desc_a,
                                               unsigned long long desc_b, int scale_d) {
        if constexpr (BF16)
            asm volatile(
                "{\n.reg .pred p;\nsetp.ne.b32 p, %54, 0;\n"
                "wgmma.mma_async.sync.aligned.m64n104k16.f32.bf16.bf16 "
                "{"
                "%0, %1, %2, %3, %4, %5, %6, %7,"
                " %8, %9, %10, %11, %12, %13, %14, %15,"
                " %16, %17, %18, %19, %20, %21, %22, %23,"
                " %24, %25, %26, %27, %28, %29, %30, %31,"
                " %32, %33, %34, %35, %36, %37, %38, %39,"
                " %40, %41, %42, %43, %44, %45, %46, %47,"
                " %48, %49, %50, %51"
                "}, %52, %53, p, 1, 1, %55, %56;\n}\n"
                : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]),
                  "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                  "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]),
                  "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
                  "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
                  "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),
                  "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
                  "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]),
                  "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
                  "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51])
                : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(TRANS_A), "n"(TRANS_B));
        else
            asm volatile(
                "{\n.reg .pred p;\nsetp.ne.b32 p, %54, 0;\n"
                "wgmma.mma_async.sync.aligned.m64n104k16.f32.f16.f16 "
                "{"
                "%0, %1, %2, %3, %4, %5, %6, %7,"
                " %8, %9, %10, %11, %12, %13, %14, %15,"
                " %16, %17, %18, %19, %20, %21, %22, %23,"
                " %24, %25, %26, %27, %28, %29, %30, %31,"
                " %32, %33, %34, %35, %36, %37, %38, %39,"
                " %40, %41, %42, %43, %44, %45, %46, %47,"
                " %48, %49, %50, %51"
                "}, %52, %53, p, 1, 1, %55, %56;\n}\n"
                : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]),
                  "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                  "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]),
                  "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
                  "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
                  "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),
                  "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
                  "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]),
                  "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
                  "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51])
                : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(TRANS_A), "n"(TRANS_B));
    }
};

template <bool BF16, int TRANS_A, int TRANS_B>
struct Wgmma<112, BF16, TRANS_A, TRANS_B> {
    static __device__ __forceinline__ void mma(float (&d)[56], unsigned long long desc_a,
                                               unsigned long long desc_b, int scale_d) {
        if constexpr (BF16)
            asm volatile(
                "{\n.reg .pred p;\nsetp.ne.b32 p, %58, 0;\n"
                "wgmma.mma_async.sync.aligned.m64n112k16.f32.bf16.bf16 "
                "{"
                "%0, %1, %2, %3, %4, %5, %6, %7,"
                " %8, %9, %10, %11, %12, %13, %14, %15,"
                " %16, %17, %18, %19, %20, %21, %22, %23,"
                " %24, %25, %26, %27, %28, %29, %30, %31,"
                " %32, %33, %34, %35, %36, %37, %38, %39,"
                " %40, %41, %42, %43, %44, %45, %46, %47,"
                " %48, %49, %50, %51, %52, %53, %54, %55"
                "}, %56, %57, p, 1, 1, %59, %60;\n}\n"
                : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]),
                  "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                  "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]),
                  "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
                  "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
                  "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),
                  "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
                  "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]),
                  "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
                  "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]),
                  "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55])
                : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(TRANS_A), "n"(TRANS_B));
        else
            asm volatile(
                "{\n.reg .pred p;\nsetp.ne.b32 p, %58, 0;\n"
                "wgmma.mma_async.sync.aligned.m64n112k16.f32.f16.f16 "
                "{"
                "%0, %1, %2, %3, %4, %5, %6, %7,"
                " %8, %9, %10, %11, %12, %13, %14, %15,"
                " %16, %17, %18, %19, %20, %21, %22, %23,"
                " %24, %25, %26, %27, %28, %29, %30, %31,"
                " %32, %33, %34, %35, %36, %37, %38, %39,"
                " %40, %41, %42, %43, %44, %45, %46, %47,"
                " %48, %49, %50, %51, %52, %53, %54, %55"
                "}, %56, %57, p, 1, 1, %59, %60;\n}\n"
                : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]),
                  "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                  "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]),
                  "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
                  "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
                  "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),
                  "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
                  "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]),
                  "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
                  "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]),
                  "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55])
                : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(TRANS_A), "n"(TRANS_B));
    }
};

template <bool BF16, int TRANS_A, int TRANS_B>
struct Wgmma<128, BF16, TRANS_A, TRANS_B> {
    static __device__ __forceinline__ void mma(float (&d)[64], unsigned long long desc_a,
                                               unsigned long long desc_b, int scale_d) {
        if constexpr (BF16)
            asm volatile(
                "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
                "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 "
                "{"
                "%0, %1, %2, %3, %4, %5, %6, %7,"
                " %8, %9, %10, %11, %12, %13, %14, %15,"
                " %16, %17, %18, %19, %20, %21, %22, %23,"
                " %24, %25, %26, %27, %28, %29, %30, %31,"
                " %32, %33, %34, %35, %36, %37, %38, %39,"
                " %40, %41, %42, %43, %44, %45, %46, %47,"
                " %48, %49, %50, %51, %52, %53, %54, %55,"
                " %56, %57, %58, %59, %60, %61, %62, %63"
                "}, %64, %65, p, 1, 1, %67, %68;\n}\n"
                : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]),
                  "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                  "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]),
                  "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
                  "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
                  "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),
                  "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
                  "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]),
                  "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
                  "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]),
                  "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
                  "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]),
                  "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
                : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(TRANS_A), "n"(TRANS_B));
        else
            asm volatile(
                "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
                "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 "
                "{"
                "%0, %1, %2, %3, %4, %5, %6, %7,"
                " %8, %9, %10, %11, %12, %13, %14, %15,"
                " %16, %17, %18, %19, %20, %21, %22, %23,"
                " %24, %25, %26, %27, %28, %29, %30, %31,"
                " %32, %33, %34, %35, %36, %37, %38, %39,"
                " %40, %41, %42, %43, %44, %45, %46, %47,"
                " %48, %49, %50, %51, %52, %53, %54, %55,"
                " %56, %57, %58, %59, %60, %61, %62, %63"
                "}, %64, %65, p, 1, 1, %67, %68;\n}\n"
                : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]),
                  "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                  "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]),
                  "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
                  "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
                  "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),
                  "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
                  "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]),
                  "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
                  "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]),
                  "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
                  "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]),
                  "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
                : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(TRANS_A), "n"(TRANS_B));
    }
};

template <bool BF16, int TRANS_A, int TRANS_B>
struct Wgmma<144, BF16, TRANS_A, TRANS_B> {
    static __device__ __forceinline__ void mma(float (&d)[72], unsigned long long desc_a,
                                               unsigned long long desc_b, int scale_d) {
        if constexpr (BF16)
            asm volatile(
                "{\n.reg .pred p;\nsetp.ne.b32 p, %74, 0;\n"
                "wgmma.mma_async.sync.aligned.m64n144k16.f32.bf16.bf16 "
                "{"
                "%0, %1, %2, %3, %4, %5, %6, %7,"
                " %8, %9, %10, %11, %12, %13, %14, %15,"
                " %16, %17, %18, %19, %20, %21, %22, %23,"
                " %24, %25, %26, %27, %28, %29, %30, %31,"
                " %32, %33, %34, %35, %36, %37, %38, %39,"
                " %40, %41, %42, %43, %44, %45, %46, %47,"
                " %48, %49, %50, %51, %52, %53, %54, %55,"
                " %56, %57, %58, %59, %60, %61, %62, %63,"
                " %64, %65, %66, %67, %68, %69, %70, %71"
                "}, %72, %73, p, 1, 1, %75, %76;\n}\n"
                : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]),
                  "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                  "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]),
                  "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
                  "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
                  "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),
                  "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
                  "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]),
                  "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
                  "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]),
                  "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
                  "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]),
                  "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),
                  "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]),
                  "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71])
                : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(TRANS_A), "n"(TRANS_B));
        else
            asm volatile(
                "{\n.reg .pred p;\nsetp.ne.b32 p, %74, 0;\n"
                "wgmma.mma_async.sync.aligned.m64n144k16.f32.f16.f16 "
                "{"
                "%0, %1, %2, %3, %4, %5, %6, %7,"
                " %8, %9, %10, %11, %12, %13, %14, %15,"
                " %16, %17, %18, %19, %20, %21, %22, %23,"
                " %24, %25, %26, %27, %28, %29, %30, %31,"
                " %32, %33, %34, %35, %36, %37, %38, %39,"
                " %40, %41, %42, %43, %44, %45, %46, %47,"
                " %48, %49, %50, %51, %52, %53, %54, %55,"
                " %56, %57, %58, %59, %60, %61, %62, %63,"
                " %64, %65, %66, %67, %68, %69, %70, %71"
                "}, %72, %73, p, 1, 1, %75, %76;\n}\n"
                : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]),
                  "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                  "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]),
                  "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
                  "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
                  "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),
                  "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
                  "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]),
                  "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
                  "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]),
                  "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
                  "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]),
                  "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),
                  "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]),
                  "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71])
                : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(TRANS_A), "n"(TRANS_B));
    }
};

template <bool BF16, int TRANS_A, int TRANS_B>
struct Wgmma<152, BF16, TRANS_A, TRANS_B> {
    static __device__ __forceinline__ void mma(float (&d)[76], unsigned long long desc_a,
                                               unsigned long long desc_b, int scale_d) {
        if constexpr (BF16)
            asm volatile(
                "{\n.reg .pred p;\nsetp.ne.b32 p, %78, 0;\n"
                "wgmma.mma_async.sync.aligned.m64n152k16.f32.bf16.bf16 "
                "{"
                "%0, %1, %2, %3, %4, %5, %6, %7,"
                " %8, %9, %10, %11, %12, %13, %14, %15,"
                " %16, %17, %18, %19, %20, %21, %22, %23,"
                " %24, %25, %26, %27, %28, %29, %30, %31,"
                " %32, %33, %34, %35, %36, %37, %38, %39,"
                " %40, %41, %42, %43, %44, %45, %46, %47,"
                " %48, %49, %50, %51, %52, %53, %54, %55,"
                " %56, %57, %58, %59, %60, %61, %62, %63,"
                " %64, %65, %66, %67, %68, %69, %70, %71,"
                " %72, %73, %74, %75"
                "}, %76, %77, p, 1, 1, %79, %80;\n}\n"
                : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]),
                  "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                  "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]),
                  "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
                  "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
                  "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),
                  "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
                  "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]),
                  "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
                  "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]),
                  "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
                  "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]),
                  "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),
                  "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]),
                  "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
                  "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75])
                : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(TRANS_A), "n"(TRANS_B));
        else
            asm volatile(
                "{\n.reg .pred p;\nsetp.ne.b32 p, %78, 0;\n"
                "wgmma.mma_async.sync.aligned.m64n152k16.f32.f16.f16 "
                "{"
                "%0, %1, %2, %3, %4, %5, %6, %7,"
                " %8, %9, %10, %11, %12, %13, %14, %15,"
                " %16, %17, %18, %19, %20, %21, %22, %23,"
                " %24, %25, %26, %27, %28, %29, %30, %31,"
                " %32, %33, %34, %35, %36, %37, %38, %39,"
                " %40, %41, %42, %43, %44, %45, %46, %47,"
                " %48, %49, %50, %51, %52, %53, %54, %55,"
                " %56, %57, %58, %59, %60, %61, %62, %63,"
                " %64, %65, %66, %67, %68, %69, %70, %71,"
                " %72, %73, %74, %75"
                "}, %76, %77, p, 1, 1, %79, %80;\n}\n"
                : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]),
                  "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                  "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]),
                  "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
                  "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
                  "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),
                  "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
                  "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]),
                  "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
                  "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]),
                  "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
                  "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]),
                  "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),
                  "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]),
                  "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
                  "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75])
                : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(TRANS_A), "n"(TRANS_B));
    }
};

template <bool BF16, int TRANS_A, int TRANS_B>
struct Wgmma<160, BF16, TRANS_A, TRANS_B> {
    static __device__ __forceinline__ void mma(float (&d)[80], unsigned long long desc_a,
                                               unsigned long long desc_b, int scale_d) {
        if constexpr (BF16)
            asm volatile(
                "{\n.reg .pred p;\nsetp.ne.b32 p, %82, 0;\n"
                "wgmma.mma_async.sync.aligned.m64n160k16.f32.bf16.bf16 "
                "{"
                "%0, %1, %2, %3, %4, %5, %6, %7,"
                " %8, %9, %10, %11, %12, %13, %14, %15,"
                " %16, %17, %18, %19, %20, %21, %22, %23,"
                " %24, %25, %26, %27, %28, %29, %30, %31,"
                " %32, %33, %34, %35, %36, %37, %38, %39,"
                " %40, %41, %42, %43, %44, %45, %46, %47,"
                " %48, %49, %50, %51, %52, %53, %54, %55,"
                " %56, %57, %58, %59, %60, %61, %62, %63,"
                " %64, %65, %66, %67, %68, %69, %70, %71,"
                " %72, %73, %74, %75, %76, %77, %78, %79"
                "}, %80, %81, p, 1, 1, %83, %84;\n}\n"
                : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]),
                  "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                  "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]),
                  "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
                  "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
                  "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),
                  "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
                  "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]),
                  "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
                  "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]),
                  "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
                  "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]),
                  "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),
                  "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]),
                  "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
                  "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]),
                  "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79])
                : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(TRANS_A), "n"(TRANS_B));
        else
            asm volatile(
                "{\n.reg .pred p;\nsetp.ne.b32 p, %82, 0;\n"
                "wgmma.mma_async.sync.aligned.m64n160k16.f32.f16.f16 "
                "{"
                "%0, %1, %2, %3, %4, %5, %6, %7,"
                " %8, %9, %10, %11, %12, %13, %14, %15,"
                " %16, %17, %18, %19, %20, %21, %22, %23,"
                " %24, %25, %26, %27, %28, %29, %30, %31,"
                " %32, %33, %34, %35, %36, %37, %38, %39,"
                " %40, %41, %42, %43, %44, %45, %46, %47,"
                " %48, %49, %50, %51, %52, %53, %54, %55,"
                " %56, %57, %58, %59, %60, %61, %62, %63,"
                " %64, %65, %66, %67, %68, %69, %70, %71,"
                " %72, %73, %74, %75, %76, %77, %78, %79"
                "}, %80, %81, p, 1, 1, %83, %84;\n}\n"
                : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]),
                  "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                  "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]),
                  "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
                  "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
                  "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),
                  "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
                  "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]),
                  "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
                  "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]),
                  "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
                  "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]),
                  "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),
                  "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]),
                  "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
                  "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]),
                  "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79])
                : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(TRANS_A), "n"(TRANS_B));
    }
};

template <bool BF16, int TRANS_A, int TRANS_B>
struct Wgmma<176, BF16, TRANS_A, TRANS_B> {
    static __device__ __forceinline__ void mma(float (&d)[88], unsigned long long desc_a,
                                               unsigned long long desc_b, int scale_d) {
        if constexpr (BF16)
            asm volatile(
                "{\n.reg .pred p;\nsetp.ne.b32 p, %90, 0;\n"
                "wgmma.mma_async.sync.aligned.m64n176k16.f32.bf16.bf16 "
                "{"
                "%0, %1, %2, %3, %4, %5, %6, %7,"
                " %8, %9, %10, %11, %12, %13, %14, %15,"
                " %16, %17, %18, %19, %20, %21, %22, %23,"
                " %24, %25, %26, %27, %28, %29, %30, %31,"
                " %32, %33, %34, %35, %36, %37, %38, %39,"
                " %40, %41, %42, %43, %44, %45, %46, %47,"
                " %48, %49, %50, %51, %52, %53, %54, %55,"
                " %56, %57, %58, %59, %60, %61, %62, %63,"
                " %64, %65, %66, %67, %68, %69, %70, %71,"
                " %72, %73, %74, %75, %76, %77, %78, %79,"
                " %80, %81, %82, %83, %84, %85, %86, %87"
                "}, %88, %89, p, 1, 1, %91, %92;\n}\n"
                : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]),
                  "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                  "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]),
                  "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
                  "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
                  "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),
                  "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
                  "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]),
                  "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
                  "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]),
                  "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
                  "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]),
                  "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),
                  "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]),
                  "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
                  "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]),
                  "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]),
                  "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]),
                  "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87])
                : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(TRANS_A), "n"(TRANS_B));
        else
            asm volatile(
                "{\n.reg .pred p;\nsetp.ne.b32 p, %90, 0;\n"
                "wgmma.mma_async.sync.aligned.m64n176k16.f32.f16.f16 "
                "{"
                "%0, %1, %2, %3, %4, %5, %6, %7,"
                " %8, %9, %10, %11, %12, %13, %14, %15,"
                " %16, %17, %18, %19, %20, %21, %22, %23,"
                " %24, %25, %26, %27, %28, %29, %30, %31,"
                " %32, %33, %34, %35, %36, %37, %38, %39,"
                " %40, %41, %42, %43, %44, %45, %46, %47,"
                " %48, %49, %50, %51, %52, %53, %54, %55,"
                " %56, %57, %58, %59, %60, %61, %62, %63,"
                " %64, %65, %66, %67, %68, %69, %70, %71,"
                " %72, %73, %74, %75, %76, %77, %78, %79,"
                " %80, %81, %82, %83, %84, %85, %86, %87"
                "}, %88, %89, p, 1, 1, %91, %92;\n}\n"
                : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]),
                  "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                  "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]),
                  "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
                  "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
                  "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),
                  "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
                  "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]),
                  "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
                  "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]),
                  "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
                  "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]),
                  "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),
                  "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]),
                  "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
                  "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]),
                  "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]),
                  "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]),
                  "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87])
                : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(TRANS_A), "n"(TRANS_B));
    }
};

template <bool BF16, int TRANS_A, int TRANS_B>
struct Wgmma<192, BF16, TRANS_A, TRANS_B> {
    static __device__ __forceinline__ void mma(float (&d)[96], unsigned long long desc_a,
                                               unsigned long long desc_b, int scale_d) {
        if constexpr (BF16)
            asm volatile(
                "{\n.reg .pred p;\nsetp.ne.b32 p, %98, 0;\n"
                "wgmma.mma_async.sync.aligned.m64n192k16.f32.bf16.bf16 "
                "{"
                "%0, %1, %2, %3, %4, %5, %6, %7,"
                " %8, %9, %10, %11, %12, %13, %14, %15,"
                " %16, %17, %18, %19, %20, %21, %22, %23,"
                " %24, %25, %26, %27, %28, %29, %30, %31,"
                " %32, %33, %34, %35, %36, %37, %38, %39,"
                " %40, %41, %42, %43, %44, %45, %46, %47,"
                " %48, %49, %50, %51, %52, %53, %54, %55,"
                " %56, %57, %58, %59, %60, %61, %62, %63,"
                " %64, %65, %66, %67, %68, %69, %70, %71,"
                " %72, %73, %74, %75, %76, %77, %78, %79,"
                " %80, %81, %82, %83, %84, %85, %86, %87,"
                " %88, %89, %90, %91, %92, %93, %94, %95"
                "}, %96, %97, p, 1, 1, %99, %100;\n}\n"
                : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]),
                  "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                  "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]),
                  "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
                  "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
                  "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),
                  "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
                  "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]),
                  "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
                  "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]),
                  "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
                  "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]),
                  "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),
                  "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]),
                  "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
                  "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]),
                  "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]),
                  "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]),
                  "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]),
                  "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]),
                  "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95])
                : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(TRANS_A), "n"(TRANS_B));
        else
            asm volatile(
                "{\n.reg .pred p;\nsetp.ne.b32 p, %98, 0;\n"
                "wgmma.mma_async.sync.aligned.m64n192k16.f32.f16.f16 "
                "{"
                "%0, %1, %2, %3, %4, %5, %6, %7,"
                " %8, %9, %10, %11, %12, %13, %14, %15,"
                " %16, %17, %18, %19, %20, %21, %22, %23,"
                " %24, %25, %26, %27, %28, %29, %30, %31,"
                " %32, %33, %34, %35, %36, %37, %38, %39,"
                " %40, %41, %42, %43, %44, %45, %46, %47,"
                " %48, %49, %50, %51, %52, %53, %54, %55,"
                " %56, %57, %58, %59, %60, %61, %62, %63,"
                " %64, %65, %66, %67, %68, %69, %70, %71,"
                " %72, %73, %74, %75, %76, %77, %78, %79,"
                " %80, %81, %82, %83, %84, %85, %86, %87,"
                " %88, %89, %90, %91, %92, %93, %94, %95"
                "}, %96, %97, p, 1, 1, %99, %100;\n}\n"
                : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]),
                  "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                  "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]),
                  "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
                  "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
                  "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),
                  "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
                  "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]),
                  "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
                  "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]),
                  "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
                  "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]),
                  "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),
                  "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]),
                  "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
                  "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]),
                  "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]),
                  "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]),
                  "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]),
                  "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]),
                  "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95])
                : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(TRANS_A), "n"(TRANS_B));
    }
};

template <bool BF16, int TRANS_A, int TRANS_B>
struct Wgmma<224, BF16, TRANS_A, TRANS_B> {
    static __device__ __forceinline__ void mma(float (&d)[112], unsigned long long desc_a,
                                               unsigned long long desc_b, int scale_d) {
        if constexpr (BF16)
            asm volatile(
                "{\n.reg .pred p;\nsetp.ne.b32 p, %114, 0;\n"
                "wgmma.mma_async.sync.aligned.m64n224k16.f32.bf16.bf16 "
                "{"
                "%0, %1, %2, %3, %4, %5, %6, %7,"
                " %8, %9, %10, %11, %12, %13, %14, %15,"
                " %16, %17, %18, %19, %20, %21, %22, %23,"
                " %24, %25, %26, %27, %28, %29, %30, %31,"
                " %32, %33, %34, %35, %36, %37, %38, %39,"
                " %40, %41, %42, %43, %44, %45, %46, %47,"
                " %48, %49, %50, %51, %52, %53, %54, %55,"
                " %56, %57, %58, %59, %60, %61, %62, %63,"
                " %64, %65, %66, %67, %68, %69, %70, %71,"
                " %72, %73, %74, %75, %76, %77, %78, %79,"
                " %80, %81, %82, %83, %84, %85, %86, %87,"
                " %88, %89, %90, %91, %92, %93, %94, %95,"
                " %96, %97, %98, %99, %100, %101, %102, %103,"
                " %104, %105, %106, %107, %108, %109, %110, %111"
                "}, %112, %113, p, 1, 1, %115, %116;\n}\n"
                : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]),
                  "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                  "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]),
                  "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
                  "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
                  "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),
                  "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
                  "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]),
                  "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
                  "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]),
                  "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
                  "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]),
                  "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),
                  "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]),
                  "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
                  "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]),
                  "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]),
                  "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]),
                  "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]),
                  "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]),
                  "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]),
                  "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]),
                  "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
                  "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]),
                  "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111])
                : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(TRANS_A), "n"(TRANS_B));
        else
            asm volatile(
                "{\n.reg .pred p;\nsetp.ne.b32 p, %114, 0;\n"
                "wgmma.mma_async.sync.aligned.m64n224k16.f32.f16.f16 "
                "{"
                "%0, %1, %2, %3, %4, %5, %6, %7,"
                " %8, %9, %10, %11, %12, %13, %14, %15,"
                " %16, %17, %18, %19, %20, %21, %22, %23,"
                " %24, %25, %26, %27, %28, %29, %30, %31,"
                " %32, %33, %34, %35, %36, %37, %38, %39,"
                " %40, %41, %42, %43, %44, %45, %46, %47,"
                " %48, %49, %50, %51, %52, %53, %54, %55,"
                " %56, %57, %58, %59, %60, %61, %62, %63,"
                " %64, %65, %66, %67, %68, %69, %70, %71,"
                " %72, %73, %74, %75, %76, %77, %78, %79,"
                " %80, %81, %82, %83, %84, %85, %86, %87,"
                " %88, %89, %90, %91, %92, %93, %94, %95,"
                " %96, %97, %98, %99, %100, %101, %102, %103,"
                " %104, %105, %106, %107, %108, %109, %110, %111"
                "}, %112, %113, p, 1, 1, %115, %116;\n}\n"
                : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]),
                  "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                  "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]),
                  "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
                  "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
                  "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),
                  "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
                  "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]),
                  "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
                  "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]),
                  "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
                  "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]),
                  "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),
                  "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]),
                  "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
                  "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]),
                  "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]),
                  "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]),
                  "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]),
                  "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]),
                  "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]),
                  "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]),
                  "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
                  "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]),
                  "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111])
                : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(TRANS_A), "n"(TRANS_B));
    }
};

template <bool BF16, int TRANS_A, int TRANS_B>
struct Wgmma<232, BF16, TRANS_A, TRANS_B> {
    static __device__ __forceinline__ void mma(float (&d)[116], unsigned long long desc_a,
                                               unsigned long long desc_b, int scale_d) {
        if constexpr (BF16)
            asm volatile(
                "{\n.reg .pred p;\nsetp.ne.b32 p, %118, 0;\n"
                "wgmma.mma_async.sync.aligned.m64n232k16.f32.bf16.bf16 "
                "{"
                "%0, %1, %2, %3, %4, %5, %6, %7,"
                " %8, %9, %10, %11, %12, %13, %14, %15,"
                " %16, %17, %18, %19, %20, %21, %22, %23,"
                " %24, %25, %26, %27, %28, %29, %30, %31,"
                " %32, %33, %34, %35, %36, %37, %38, %39,"
                " %40, %41, %42, %43, %44, %45, %46, %47,"
                " %48, %49, %50, %51, %52, %53, %54, %55,"
                " %56, %57, %58, %59, %60, %61, %62, %63,"
                " %64, %65, %66, %67, %68, %69, %70, %71,"
                " %72, %73, %74, %75, %76, %77, %78, %79,"
                " %80, %81, %82, %83, %84, %85, %86, %87,"
                " %88, %89, %90, %91, %92, %93, %94, %95,"
                " %96, %97, %98, %99, %100, %101, %102, %103,"
                " %104, %105, %106, %107, %108, %109, %110, %111,"
                " %112, %113, %114, %115"
                "}, %116, %117, p, 1, 1, %119, %120;\n}\n"
                : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]),
                  "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                  "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]),
                  "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
                  "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
                  "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),
                  "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
                  "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]),
                  "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
                  "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]),
                  "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
                  "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]),
                  "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),
                  "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]),
                  "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
                  "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]),
                  "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]),
                  "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]),
                  "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]),
                  "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]),
                  "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]),
                  "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]),
                  "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
                  "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]),
                  "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]),
                  "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115])
                : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(TRANS_A), "n"(TRANS_B));
        else
            asm volatile(
                "{\n.reg .pred p;\nsetp.ne.b32 p, %118, 0;\n"
                "wgmma.mma_async.sync.aligned.m64n232k16.f32.f16.f16 "
                "{"
                "%0, %1, %2, %3, %4, %5, %6, %7,"
                " %8, %9, %10, %11, %12, %13, %14, %15,"
                " %16, %17, %18, %19, %20, %21, %22, %23,"
                " %24, %25, %26, %27, %28, %29, %30, %31,"
                " %32, %33, %34, %35, %36, %37, %38, %39,"
                " %40, %41, %42, %43, %44, %45, %46, %47,"
                " %48, %49, %50, %51, %52, %53, %54, %55,"
                " %56, %57, %58, %59, %60, %61, %62, %63,"
                " %64, %65, %66, %67, %68, %69, %70, %71,"
                " %72, %73, %74, %75, %76, %77, %78, %79,"
                " %80, %81, %82, %83, %84, %85, %86, %87,"
                " %88, %89, %90, %91, %92, %93, %94, %95,"
                " %96, %97, %98, %99, %100, %101, %102, %103,"
                " %104, %105, %106, %107, %108, %109, %110, %111,"
                " %112, %113, %114, %115"
                "}, %116, %117, p, 1, 1, %119, %120;\n}\n"
                : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]),
                  "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                  "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]),
                  "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
                  "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
                  "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),
                  "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
                  "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]),
                  "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
                  "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]),
                  "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
                  "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]),
                  "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),
                  "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]),
                  "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
                  "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]),
                  "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]),
                  "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]),
                  "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]),
                  "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]),
                  "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]),
                  "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]),
                  "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
                  "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]),
                  "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]),
                  "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115])
                : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(TRANS_A), "n"(TRANS_B));
    }
};

template <bool BF16, int TRANS_A, int TRANS_B>
struct Wgmma<256, BF16, TRANS_A, TRANS_B> {
    static __device__ __forceinline__ void mma(float (&d)[128], unsigned long long desc_a,
                                               unsigned long long desc_b, int scale_d) {
        if constexpr (BF16)
            asm volatile(
                "{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
                "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 "
                "{"
                "%0, %1, %2, %3, %4, %5, %6, %7,"
                " %8, %9, %10, %11, %12, %13, %14, %15,"
                " %16, %17, %18, %19, %20, %21, %22, %23,"
                " %24, %25, %26, %27, %28, %29, %30, %31,"
                " %32, %33, %34, %35, %36, %37, %38, %39,"
                " %40, %41, %42, %43, %44, %45, %46, %47,"
                " %48, %49, %50, %51, %52, %53, %54, %55,"
                " %56, %57, %58, %59, %60, %61, %62, %63,"
                " %64, %65, %66, %67, %68, %69, %70, %71,"
                " %72, %73, %74, %75, %76, %77, %78, %79,"
                " %80, %81, %82, %83, %84, %85, %86, %87,"
                " %88, %89, %90, %91, %92, %93, %94, %95,"
                " %96, %97, %98, %99, %100, %101, %102, %103,"
                " %104, %105, %106, %107, %108, %109, %110, %111,"
                " %112, %113, %114, %115, %116, %117, %118, %119,"
                " %120, %121, %122, %123, %124, %125, %126, %127"
                "}, %128, %129, p, 1, 1, %131, %132;\n}\n"
                : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]),
                  "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                  "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]),
                  "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
                  "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
                  "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),
                  "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
                  "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]),
                  "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
                  "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]),
                  "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
                  "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]),
                  "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),
                  "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]),
                  "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
                  "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]),
                  "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]),
                  "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]),
                  "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]),
                  "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]),
                  "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]),
                  "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]),
                  "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
                  "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]),
                  "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]),
                  "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]),
                  "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]),
                  "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]),
                  "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
                : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(TRANS_A), "n"(TRANS_B));
        else
            asm volatile(
                "{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
                "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 "
                "{"
                "%0, %1, %2, %3, %4, %5, %6, %7,"
                " %8, %9, %10, %11, %12, %13, %14, %15,"
                " %16, %17, %18, %19, %20, %21, %22, %23,"
                " %24, %25, %26, %27, %28, %29, %30, %31,"
                " %32, %33, %34, %35, %36, %37, %38, %39,"
                " %40, %41, %42, %43, %44, %45, %46, %47,"
                " %48, %49, %50, %51, %52, %53, %54, %55,"
                " %56, %57, %58, %59, %60, %61, %62, %63,"
                " %64, %65, %66, %67, %68, %69, %70, %71,"
                " %72, %73, %74, %75, %76, %77, %78, %79,"
                " %80, %81, %82, %83, %84, %85, %86, %87,"
                " %88, %89, %90, %91, %92, %93, %94, %95,"
                " %96, %97, %98, %99, %100, %101, %102, %103,"
                " %104, %105, %106, %107, %108, %109, %110, %111,"
                " %112, %113, %114, %115, %116, %117, %118, %119,"
                " %120, %121, %122, %123, %124, %125, %126, %127"
                "}, %128, %129, p, 1, 1, %131, %132;\n}\n"
                : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]),
                  "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                  "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]),
                  "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
                  "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
                  "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),
                  "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
                  "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]),
                  "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
                  "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]),
                  "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
                  "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]),
                  "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),
                  "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]),
                  "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
                  "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]),
                  "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]),
                  "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]),
                  "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]),
                  "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]),
                  "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]),
                  "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]),
                  "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
                  "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]),
                  "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]),
                  "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]),
                  "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]),
                  "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]),
                  "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
                : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(TRANS_A), "n"(TRANS_B));
    }
};

template <>
struct WgmmaTf32<8> {
    static __device__ __forceinline__ void mma(float (&d)[4], unsigned long long desc_a,
                                               unsigned long long desc_b, int scale_d) {
        asm volatile(
                "{\n.reg .pred p;\nsetp.ne.b32 p, %6, 0;\n"
                "wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32 "
                "{"
                "%0, %1, %2, %3"
                "}, %4, %5, p, 1, 1;\n}\n"
                : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                : "l"(desc_a), "l"(desc_b), "r"(scale_d));
    }
    static __device__ __forceinline__ void mma_rs(float (&d)[4], const unsigned (&a)[4],
                                                  unsigned long long desc_b, int scale_d) {
        asm volatile(
                "{\n.reg .pred p;\nsetp.ne.b32 p, %9, 0;\n"
                "wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32 "
                "{"
                "%0, %1, %2, %3"
                "}, {%4, %5, %6, %7}, %8, p, 1, 1;\n}\n"
                : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(scale_d));
    }
};

template <>
struct WgmmaTf32<16> {
    static __device__ __forceinline__ void mma(float (&d)[8], unsigned long long desc_a,
                                               unsigned long long desc_b, int scale_d) {
        asm volatile(
                "{\n.reg .pred p;\nsetp.ne.b32 p, %10, 0;\n"
                "wgmma.mma_async.sync.aligned.m64n16k8.f32.tf32.tf32 "
                "{"
                "%0, %1, %2, %3, %4, %5, %6, %7"
                "}, %8, %9, p, 1, 1;\n}\n"
                : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]),
                  "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7])
                : "l"(desc_a), "l"(desc_b), "r"(scale_d));
    }
    static __device__ __forceinline__ void mma_rs(float (&d)[8], const unsigned (&a)[4],
                                                  unsigned long long desc_b, int scale_d) {
        asm volatile(
                "{\n.reg .pred p;\nsetp.ne.b32 p, %13, 0;\n"
                "wgmma.mma_async.sync.aligned.m64n16k8.f32.tf32.tf32 "
                "{"
                "%0, %1, %2, %3, %4, %5, %6, %7"
                "}, {%8, %9, %10, %11}, %12, p, 1, 1;\n}\n"
                : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]),
                  "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7])
                : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(scale_d));
    }
};

template <>
struct WgmmaTf32<32> {
    static __device__ __forceinline__ void mma(float (&d)[16], unsigned long long desc_a,
                                               unsigned long long desc_b, int scale_d) {
        asm volatile(
                "{\n.reg .pred p;\nsetp.ne.b32 p, %18, 0;\n"
                "wgmma.mma_async.sync.aligned.m64n32k8.f32.tf32.tf32 "
                "{"
                "%0, %1, %2, %3, %4, %5, %6, %7,"
                " %8, %9, %10, %11, %12, %13, %14, %15"
                "}, %16, %17, p, 1, 1;\n}\n"
                : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]),
                  "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                  "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15])
                : "l"(desc_a), "l"(desc_b), "r"(scale_d));
    }
    static __device__ __forceinline__ void mma_rs(float (&d)[16], const unsigned (&a)[4],
                                                  unsigned long long desc_b, int scale_d) {
        asm volatile(
                "{\n.reg .pred p;\nsetp.ne.b32 p, %21, 0;\n"
                "wgmma.mma_async.sync.aligned.m64n32k8.f32.tf32.tf32 "
                "{"
                "%0, %1, %2, %3, %4, %5, %6, %7,"
                " %8, %9, %10, %11, %12, %13, %14, %15"
                "}, {%16, %17, %18, %19}, %20, p, 1, 1;\n}\n"
                : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]),
                  "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                  "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15])
                : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(scale_d));
    }
};

template <>
struct WgmmaTf32<64> {
    static __device__ __forceinline__ void mma(float (&d)[32], unsigned long long desc_a,
                                               unsigned long long desc_b, int scale_d) {
        asm volatile(
                "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
                "wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32 "
                "{"
                "%0, %1, %2, %3, %4, %5, %6, %7,"
                " %8, %9, %10, %11, %12, %13, %14, %15,"
                " %16, %17, %18, %19, %20, %21, %22, %23,"
                " %24, %25, %26, %27, %28, %29, %30, %31"
                "}, %32, %33, p, 1, 1;\n}\n"
                : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]),
                  "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                  "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]),
                  "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
                  "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
                : "l"(desc_a), "l"(desc_b), "r"(scale_d));
    }
    static __device__ __forceinline__ void mma_rs(float (&d)[32], const unsigned (&a)[4],
                                                  unsigned long long desc_b, int scale_d) {
        asm volatile(
                "{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\n"
                "wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32 "
                "{"
                "%0, %1, %2, %3, %4, %5, %6, %7,"
                " %8, %9, %10, %11, %12, %13, %14, %15,"
                " %16, %17, %18, %19, %20, %21, %22, %23,"
                " %24, %25, %26, %27, %28, %29, %30, %31"
                "}, {%32, %33, %34, %35}, %36, p, 1, 1;\n}\n"
                : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]),
                  "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                  "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]),
                  "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
                  "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
                : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(scale_d));
    }
};

template <>
struct WgmmaTf32<128> {
    static __device__ __forceinline__ void mma(float (&d)[64], unsigned long long desc_a,
                                               unsigned long long desc_b, int scale_d) {
        asm volatile(
                "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
                "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 "
                "{"
                "%0, %1, %2, %3, %4, %5, %6, %7,"
                " %8, %9, %10, %11, %12, %13, %14, %15,"
                " %16, %17, %18, %19, %20, %21, %22, %23,"
                " %24, %25, %26, %27, %28, %29, %30, %31,"
                " %32, %33, %34, %35, %36, %37, %38, %39,"
                " %40, %41, %42, %43, %44, %45, %46, %47,"
                " %48, %49, %50, %51, %52, %53, %54, %55,"
                " %56, %57, %58, %59, %60, %61, %62, %63"
                "}, %64, %65, p, 1, 1;\n}\n"
                : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]),
                  "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                  "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]),
                  "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
                  "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
                  "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),
                  "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
                  "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]),
                  "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
                  "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]),
                  "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
                  "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]),
                  "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
                : "l"(desc_a), "l"(desc_b), "r"(scale_d));
    }
    static __device__ __forceinline__ void mma_rs(float (&d)[64], const unsigned (&a)[4],
                                                  unsigned long long desc_b, int scale_d) {
        asm volatile(
                "{\n.reg .pred p;\nsetp.ne.b32 p, %69, 0;\n"
                "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 "
                "{"
                "%0, %1, %2, %3, %4, %5, %6, %7,"
                " %8, %9, %10, %11, %12, %13, %14, %15,"
                " %16, %17, %18, %19, %20, %21, %22, %23,"
                " %24, %25, %26, %27, %28, %29, %30, %31,"
                " %32, %33, %34, %35, %36, %37, %38, %39,"
                " %40, %41, %42, %43, %44, %45, %46, %47,"
                " %48, %49, %50, %51, %52, %53, %54, %55,"
                " %56, %57, %58, %59, %60, %61, %62, %63"
                "}, {%64, %65, %66, %67}, %68, p, 1, 1;\n}\n"
                : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]),
                  "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                  "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]),
                  "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
                  "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
                  "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),
                  "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
                  "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]),
                  "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
                  "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]),
                  "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
                  "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]),
                  "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
                : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(scale_d));
    }
};

template <>
struct WgmmaTf32<192> {
    static __device__ __forceinline__ void mma(float (&d)[96], unsigned long long desc_a,
                                               unsigned long long desc_b, int scale_d) {
        asm volatile(
                "{\n.reg .pred p;\nsetp.ne.b32 p, %98, 0;\n"
                "wgmma.mma_async.sync.aligned.m64n192k8.f32.tf32.tf32 "
                "{"
                "%0, %1, %2, %3, %4, %5, %6, %7,"
                " %8, %9, %10, %11, %12, %13, %14, %15,"
                " %16, %17, %18, %19, %20, %21, %22, %23,"
                " %24, %25, %26, %27, %28, %29, %30, %31,"
                " %32, %33, %34, %35, %36, %37, %38, %39,"
                " %40, %41, %42, %43, %44, %45, %46, %47,"
                " %48, %49, %50, %51, %52, %53, %54, %55,"
                " %56, %57, %58, %59, %60, %61, %62, %63,"
                " %64, %65, %66, %67, %68, %69, %70, %71,"
                " %72, %73, %74, %75, %76, %77, %78, %79,"
                " %80, %81, %82, %83, %84, %85, %86, %87,"
                " %88, %89, %90, %91, %92, %93, %94, %95"
                "}, %96, %97, p, 1, 1;\n}\n"
                : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]),
                  "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                  "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]),
                  "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
                  "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
                  "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),
                  "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
                  "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]),
                  "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
                  "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]),
                  "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
                  "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]),
                  "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),
                  "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]),
                  "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
                  "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]),
                  "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]),
                  "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]),
                  "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]),
                  "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]),
                  "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95])
                : "l"(desc_a), "l"(desc_b), "r"(scale_d));
    }
    static __device__ __forceinline__ void mma_rs(float (&d)[96], const unsigned (&a)[4],
                                                  unsigned long long desc_b, int scale_d) {
        asm volatile(
                "{\n.reg .pred p;\nsetp.ne.b32 p, %101, 0;\n"
                "wgmma.mma_async.sync.aligned.m64n192k8.f32.tf32.tf32 "
                "{"
                "%0, %1, %2, %3, %4, %5, %6, %7,"
                " %8, %9, %10, %11, %12, %13, %14, %15,"
                " %16, %17, %18, %19, %20, %21, %22, %23,"
                " %24, %25, %26, %27, %28, %29, %30, %31,"
                " %32, %33, %34, %35, %36, %37, %38, %39,"
                " %40, %41, %42, %43, %44, %45, %46, %47,"
                " %48, %49, %50, %51, %52, %53, %54, %55,"
                " %56, %57, %58, %59, %60, %61, %62, %63,"
                " %64, %65, %66, %67, %68, %69, %70, %71,"
                " %72, %73, %74, %75, %76, %77, %78, %79,"
                " %80, %81, %82, %83, %84, %85, %86, %87,"
                " %88, %89, %90, %91, %92, %93, %94, %95"
                "}, {%96, %97, %98, %99}, %100, p, 1, 1;\n}\n"
                : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]),
                  "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                  "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]),
                  "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
                  "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
                  "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),
                  "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
                  "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]),
                  "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
                  "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]),
                  "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
                  "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]),
                  "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),
                  "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]),
                  "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
                  "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]),
                  "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]),
                  "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]),
                  "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]),
                  "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]),
                  "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95])
                : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(scale_d));
    }
};

template <>
struct WgmmaTf32<256> {
    static __device__ __forceinline__ void mma(float (&d)[128], unsigned long long desc_a,
                                               unsigned long long desc_b, int scale_d) {
        asm volatile(
                "{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
                "wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32 "
                "{"
                "%0, %1, %2, %3, %4, %5, %6, %7,"
                " %8, %9, %10, %11, %12, %13, %14, %15,"
                " %16, %17, %18, %19, %20, %21, %22, %23,"
                " %24, %25, %26, %27, %28, %29, %30, %31,"
                " %32, %33, %34, %35, %36, %37, %38, %39,"
                " %40, %41, %42, %43, %44, %45, %46, %47,"
                " %48, %49, %50, %51, %52, %53, %54, %55,"
                " %56, %57, %58, %59, %60, %61, %62, %63,"
                " %64, %65, %66, %67, %68, %69, %70, %71,"
                " %72, %73, %74, %75, %76, %77, %78, %79,"
                " %80, %81, %82, %83, %84, %85, %86, %87,"
                " %88, %89, %90, %91, %92, %93, %94, %95,"
                " %96, %97, %98, %99, %100, %101, %102, %103,"
                " %104, %105, %106, %107, %108, %109, %110, %111,"
                " %112, %113, %114, %115, %116, %117, %118, %119,"
                " %120, %121, %122, %123, %124, %125, %126, %127"
                "}, %128, %129, p, 1, 1;\n}\n"
                : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]),
                  "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                  "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]),
                  "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
                  "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
                  "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),
                  "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
                  "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]),
                  "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
                  "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]),
                  "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
                  "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]),
                  "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),
                  "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]),
                  "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
                  "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]),
                  "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]),
                  "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]),
                  "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]),
                  "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]),
                  "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]),
                  "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]),
                  "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
                  "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]),
                  "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]),
                  "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]),
                  "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]),
                  "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]),
                  "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
                : "l"(desc_a), "l"(desc_b), "r"(scale_d));
    }
    static __device__ __forceinline__ void mma_rs(float (&d)[128], const unsigned (&a)[4],
                                                  unsigned long long desc_b, int scale_d) {
        asm volatile(
                "{\n.reg .pred p;\nsetp.ne.b32 p, %133, 0;\n"
                "wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32 "
                "{"
                "%0, %1, %2, %3, %4, %5, %6, %7,"
                " %8, %9, %10, %11, %12, %13, %14, %15,"
                " %16, %17, %18, %19, %20, %21, %22, %23,"
                " %24, %25, %26, %27, %28, %29, %30, %31,"
                " %32, %33, %34, %35, %36, %37, %38, %39,"
                " %40, %41, %42, %43, %44, %45, %46, %47,"
                " %48, %49, %50, %51, %52, %53, %54, %55,"
                " %56, %57, %58, %59, %60, %61, %62, %63,"
                " %64, %65, %66, %67, %68, %69, %70, %71,"
                " %72, %73, %74, %75, %76, %77, %78, %79,"
                " %80, %81, %82, %83, %84, %85, %86, %87,"
                " %88, %89, %90, %91, %92, %93, %94, %95,"
                " %96, %97, %98, %99, %100, %101, %102, %103,"
                " %104, %105, %106, %107, %108, %109, %110, %111,"
                " %112, %113, %114, %115, %116, %117, %118, %119,"
                " %120, %121, %122, %123, %124, %125, %126, %127"
                "}, {%128, %129, %130, %131}, %132, p, 1, 1;\n}\n"
                : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]),
                  "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                  "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]),
                  "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
                  "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
                  "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),
                  "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
                  "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]),
                  "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
                  "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]),
                  "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
                  "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]),
                  "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),
                  "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]),
                  "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
                  "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]),
                  "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]),
                  "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]),
                  "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]),
                  "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]),
                  "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]),
                  "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]),
                  "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
                  "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]),
                  "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]),
                  "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]),
                  "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]),
                  "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]),
                  "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
                : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(scale_d));
    }
};

template <>
struct WgmmaS8<64> {
    static __device__ __forceinline__ void mma(int (&d)[32], unsigned long long desc_a,
                                               unsigned long long desc_b, int scale_d) {
        asm volatile(
                "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
                "wgmma.mma_async.sync.aligned.m64n64k32.s32.s8.s8 "
                "{"
                "%0, %1, %2, %3, %4, %5, %6, %7,"
                " %8, %9, %10, %11, %12, %13, %14, %15,"
                " %16, %17, %18, %19, %20, %21, %22, %23,"
                " %24, %25, %26, %27, %28, %29, %30, %31"
                "}, %32, %33, p;\n}\n"
                : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]),
                  "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7]),
                  "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11]),
                  "+r"(d[12]), "+r"(d[13]), "+r"(d[14]), "+r"(d[15]),
                  "+r"(d[16]), "+r"(d[17]), "+r"(d[18]), "+r"(d[19]),
                  "+r"(d[20]), "+r"(d[21]), "+r"(d[22]), "+r"(d[23]),
                  "+r"(d[24]), "+r"(d[25]), "+r"(d[26]), "+r"(d[27]),
                  "+r"(d[28]), "+r"(d[29]), "+r"(d[30]), "+r"(d[31])
                : "l"(desc_a), "l"(desc_b), "r"(scale_d));
    }
};

template <>
struct WgmmaS8<128> {
    static __device__ __forceinline__ void mma(int (&d)[64], unsigned long long desc_a,
                                               unsigned long long desc_b, int scale_d) {
        asm volatile(
                "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
                "wgmma.mma_async.sync.aligned.m64n128k32.s32.s8.s8 "
                "{"
                "%0, %1, %2, %3, %4, %5, %6, %7,"
                " %8, %9, %10, %11, %12, %13, %14, %15,"
                " %16, %17, %18, %19, %20, %21, %22, %23,"
                " %24, %25, %26, %27, %28, %29, %30, %31,"
                " %32, %33, %34, %35, %36, %37, %38, %39,"
                " %40, %41, %42, %43, %44, %45, %46, %47,"
                " %48, %49, %50, %51, %52, %53, %54, %55,"
                " %56, %57, %58, %59, %60, %61, %62, %63"
                "}, %64, %65, p;\n}\n"
                : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]),
                  "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7]),
                  "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11]),
                  "+r"(d[12]), "+r"(d[13]), "+r"(d[14]), "+r"(d[15]),
                  "+r"(d[16]), "+r"(d[17]), "+r"(d[18]), "+r"(d[19]),
                  "+r"(d[20]), "+r"(d[21]), "+r"(d[22]), "+r"(d[23]),
                  "+r"(d[24]), "+r"(d[25]), "+r"(d[26]), "+r"(d[27]),
                  "+r"(d[28]), "+r"(d[29]), "+r"(d[30]), "+r"(d[31]),
                  "+r"(d[32]), "+r"(d[33]), "+r"(d[34]), "+r"(d[35]),
                  "+r"(d[36]), "+r"(d[37]), "+r"(d[38]), "+r"(d[39]),
                  "+r"(d[40]), "+r"(d[41]), "+r"(d[42]), "+r"(d[43]),
                  "+r"(d[44]), "+r"(d[45]), "+r"(d[46]), "+r"(d[47]),
                  "+r"(d[48]), "+r"(d[49]), "+r"(d[50]), "+r"(d[51]),
                  "+r"(d[52]), "+r"(d[53]), "+r"(d[54]), "+r"(d[55]),
                  "+r"(d[56]), "+r"(d[57]), "+r"(d[58]), "+r"(d[59]),
                  "+r"(d[60]), "+r"(d[61]), "+r"(d[62]), "+r"(d[63])
                : "l"(desc_a), "l"(desc_b), "r"(scale_d));
    }
};

template <>
struct WgmmaS8<192> {
    static __device__ __forceinline__ void mma(int (&d)[96], unsigned long long desc_a,
                                               unsigned long long desc_b, int scale_d) {
        asm volatile(
                "{\n.reg .pred p;\nsetp.ne.b32 p, %98, 0;\n"
                "wgmma.mma_async.sync.aligned.m64n192k32.s32.s8.s8 "
                "{"
                "%0, %1, %2, %3, %4, %5, %6, %7,"
                " %8, %9, %10, %11, %12, %13, %14, %15,"
                " %16, %17, %18, %19, %20, %21, %22, %23,"
                " %24, %25, %26, %27, %28, %29, %30, %31,"
                " %32, %33, %34, %35, %36, %37, %38, %39,"
                " %40, %41, %42, %43, %44, %45, %46, %47,"
                " %48, %49, %50, %51, %52, %53, %54, %55,"
                " %56, %57, %58, %59, %60, %61, %62, %63,"
                " %64, %65, %66, %67, %68, %69, %70, %71,"
                " %72, %73, %74, %75, %76, %77, %78, %79,"
                " %80, %81, %82, %83, %84, %85, %86, %87,"
                " %88, %89, %90, %91, %92, %93, %94, %95"
                "}, %96, %97, p;\n}\n"
                : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]),
                  "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7]),
                  "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11]),
                  "+r"(d[12]), "+r"(d[13]), "+r"(d[14]), "+r"(d[15]),
                  "+r"(d[16]), "+r"(d[17]), "+r"(d[18]), "+r"(d[19]),
                  "+r"(d[20]), "+r"(d[21]), "+r"(d[22]), "+r"(d[23]),
                  "+r"(d[24]), "+r"(d[25]), "+r"(d[26]), "+r"(d[27]),
                  "+r"(d[28]), "+r"(d[29]), "+r"(d[30]), "+r"(d[31]),
                  "+r"(d[32]), "+r"(d[33]), "+r"(d[34]), "+r"(d[35]),
                  "+r"(d[36]), "+r"(d[37]), "+r"(d[38]), "+r"(d[39]),
                  "+r"(d[40]), "+r"(d[41]), "+r"(d[42]), "+r"(d[43]),
                  "+r"(d[44]), "+r"(d[45]), "+r"(d[46]), "+r"(d[47]),
                  "+r"(d[48]), "+r"(d[49]), "+r"(d[50]), "+r"(d[51]),
                  "+r"(d[52]), "+r"(d[53]), "+r"(d[54]), "+r"(d[55]),
                  "+r"(d[56]), "+r"(d[57]), "+r"(d[58]), "+r"(d[59]),
                  "+r"(d[60]), "+r"(d[61]), "+r"(d[62]), "+r"(d[63]),
                  "+r"(d[64]), "+r"(d[65]), "+r"(d[66]), "+r"(d[67]),
                  "+r"(d[68]), "+r"(d[69]), "+r"(d[70]), "+r"(d[71]),
                  "+r"(d[72]), "+r"(d[73]), "+r"(d[74]), "+r"(d[75]),
                  "+r"(d[76]), "+r"(d[77]), "+r"(d[78]), "+r"(d[79]),
                  "+r"(d[80]), "+r"(d[81]), "+r"(d[82]), "+r"(d[83]),
                  "+r"(d[84]), "+r"(d[85]), "+r"(d[86]), "+r"(d[87]),
                  "+r"(d[88]), "+r"(d[89]), "+r"(d[90]), "+r"(d[91]),
                  "+r"(d[92]), "+r"(d[93]), "+r"(d[94]), "+r"(d[95])
                : "l"(desc_a), "l"(desc_b), "r"(scale_d));
    }
};

template <>
struct WgmmaS8<256> {
    static __device__ __forceinline__ void mma(int (&d)[128], unsigned long long desc_a,
                                               unsigned long long desc_b, int scale_d) {
        asm volatile(
                "{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
                "wgmma.mma_async.sync.aligned.m64n256k32.s32.s8.s8 "
                "{"
                "%0, %1, %2, %3, %4, %5, %6, %7,"
                " %8, %9, %10, %11, %12, %13, %14, %15,"
                " %16, %17, %18, %19, %20, %21, %22, %23,"
                " %24, %25, %26, %27, %28, %29, %30, %31,"
                " %32, %33, %34, %35, %36, %37, %38, %39,"
                " %40, %41, %42, %43, %44, %45, %46, %47,"
                " %48, %49, %50, %51, %52, %53, %54, %55,"
                " %56, %57, %58, %59, %60, %61, %62, %63,"
                " %64, %65, %66, %67, %68, %69, %70, %71,"
                " %72, %73, %74, %75, %76, %77, %78, %79,"
                " %80, %81, %82, %83, %84, %85, %86, %87,"
                " %88, %89, %90, %91, %92, %93, %94, %95,"
                " %96, %97, %98, %99, %100, %101, %102, %103,"
                " %104, %105, %106, %107, %108, %109, %110, %111,"
                " %112, %113, %114, %115, %116, %117, %118, %119,"
                " %120, %121, %122, %123, %124, %125, %126, %127"
                "}, %128, %129, p;\n}\n"
                : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]),
                  "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7]),
                  "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11]),
                  "+r"(d[12]), "+r"(d[13]), "+r"(d[14]), "+r"(d[15]),
                  "+r"(d[16]), "+r"(d[17]), "+r"(d[18]), "+r"(d[19]),
                  "+r"(d[20]), "+r"(d[21]), "+r"(d[22]), "+r"(d[23]),
                  "+r"(d[24]), "+r"(d[25]), "+r"(d[26]), "+r"(d[27]),
                  "+r"(d[28]), "+r"(d[29]), "+r"(d[30]), "+r"(d[31]),
                  "+r"(d[32]), "+r"(d[33]), "+r"(d[34]), "+r"(d[35]),
                  "+r"(d[36]), "+r"(d[37]), "+r"(d[38]), "+r"(d[39]),
                  "+r"(d[40]), "+r"(d[41]), "+r"(d[42]), "+r"(d[43]),
                  "+r"(d[44]), "+r"(d[45]), "+r"(d[46]), "+r"(d[47]),
                  "+r"(d[48]), "+r"(d[49]), "+r"(d[50]), "+r"(d[51]),
                  "+r"(d[52]), "+r"(d[53]), "+r"(d[54]), "+r"(d[55]),
                  "+r"(d[56]), "+r"(d[57]), "+r"(d[58]), "+r"(d[59]),
                  "+r"(d[60]), "+r"(d[61]), "+r"(d[62]), "+r"(d[63]),
                  "+r"(d[64]), "+r"(d[65]), "+r"(d[66]), "+r"(d[67]),
                  "+r"(d[68]), "+r"(d[69]), "+r"(d[70]), "+r"(d[71]),
                  "+r"(d[72]), "+r"(d[73]), "+r"(d[74]), "+r"(d[75]),
                  "+r"(d[76]), "+r"(d[77]), "+r"(d[78]), "+r"(d[79]),
                  "+r"(d[80]), "+r"(d[81]), "+r"(d[82]), "+r"(d[83]),
                  "+r"(d[84]), "+r"(d[85]), "+r"(d[86]), "+r"(d[87]),
                  "+r"(d[88]), "+r"(d[89]), "+r"(d[90]), "+r"(d[91]),
                  "+r"(d[92]), "+r"(d[93]), "+r"(d[94]), "+r"(d[95]),
                  "+r"(d[96]), "+r"(d[97]), "+r"(d[98]), "+r"(d[99]),
                  "+r"(d[100]), "+r"(d[101]), "+r"(d[102]), "+r"(d[103]),
                  "+r"(d[104]), "+r"(d[105]), "+r"(d[106]), "+r"(d[107]),
                  "+r"(d[108]), "+r"(d[109]), "+r"(d[110]), "+r"(d[111]),
                  "+r"(d[112]), "+r"(d[113]), "+r"(d[114]), "+r"(d[115]),
                  "+r"(d[116]), "+r"(d[117]), "+r"(d[118]), "+r"(d[119]),
                  "+r"(d[120]), "+r"(d[121]), "+r"(d[122]), "+r"(d[123]),
                  "+r"(d[124]), "+r"(d[125]), "+r"(d[126]), "+r"(d[127])
                : "l"(desc_a), "l"(desc_b), "r"(scale_d));
    }
};

template <>
struct WgmmaE4m3<8> {
    static __device__ __forceinline__ void mma(float (&d)[4], unsigned long long desc_a,
                                               unsigned long long desc_b, int scale_d) {
        asm volatile(
                "{\n.reg .pred p;\nsetp.ne.b32 p, %6, 0;\n"
                "wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3 "
                "{"
                "%0, %1, %2, %3"
                "}, %4, %5, p, 1, 1;\n}\n"
                : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                : "l"(desc_a), "l"(desc_b), "r"(scale_d));
    }
};

template <>
struct WgmmaE4m3<16> {
    static __device__ __forceinline__ void mma(float (&d)[8], unsigned long long desc_a,
                                               unsigned long long desc_b, int scale_d) {
        asm volatile(
                "{\n.reg .pred p;\nsetp.ne.b32 p, %10, 0;\n"
                "wgmma.mma_async.sync.aligned.m64n16k32.f32.e4m3.e4m3 "
                "{"
                "%0, %1, %2, %3, %4, %5, %6, %7"
                "}, %8, %9, p, 1, 1;\n}\n"
                : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]),
                  "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7])
                : "l"(desc_a), "l"(desc_b), "r"(scale_d));
    }
};

template <>
struct WgmmaE4m3<32> {
    static __device__ __forceinline__ void mma(float (&d)[16], unsigned long long desc_a,
                                               unsigned long long desc_b, int scale_d) {
        asm volatile(
                "{\n.reg .pred p;\nsetp.ne.b32 p, %18, 0;\n"
                "wgmma.mma_async.sync.aligned.m64n32k32.f32.e4m3.e4m3 "
                "{"
                "%0, %1, %2, %3, %4, %5, %6, %7,"
                " %8, %9, %10, %11, %12, %13, %14, %15"
                "}, %16, %17, p, 1, 1;\n}\n"
                : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]),
                  "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                  "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15])
                : "l"(desc_a), "l"(desc_b), "r"(scale_d));
    }
};

template <>
struct WgmmaE4m3<48> {
    static __device__ __forceinline__ void mma(float (&d)[24], unsigned long long desc_a,
                                               unsigned long long desc_b, int scale_d) {
        asm volatile(
                "{\n.reg .pred p;\nsetp.ne.b32 p, %26, 0;\n"
                "wgmma.mma_async.sync.aligned.m64n48k32.f32.e4m3.e4m3 "
                "{"
                "%0, %1, %2, %3, %4, %5, %6, %7,"
                " %8, %9, %10, %11, %12, %13, %14, %15,"
                " %16, %17, %18, %19, %20, %21, %22, %23"
                "}, %24, %25, p, 1, 1;\n}\n"
                : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]),
                  "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                  "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]),
                  "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23])
                : "l"(desc_a), "l"(desc_b), "r"(scale_d));
    }
};

template <>
struct WgmmaE4m3<64> {
    static __device__ __forceinline__ void mma(float (&d)[32], unsigned long long desc_a,
                                               unsigned long long desc_b, int scale_d) {
        asm volatile(
                "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
                "wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3 "
                "{"
                "%0, %1, %2, %3, %4, %5, %6, %7,"
                " %8, %9, %10, %11, %12, %13, %14, %15,"
                " %16, %17, %18, %19, %20, %21, %22, %23,"
                " %24, %25, %26, %27, %28, %29, %30, %31"
                "}, %32, %33, p, 1, 1;\n}\n"
                : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]),
                  "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                  "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]),
                  "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
                  "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
                : "l"(desc_a), "l"(desc_b), "r"(scale_d));
    }
};

template <>
struct WgmmaE4m3<128> {
    static __device__ __forceinline__ void mma(float (&d)[64], unsigned long long desc_a,
                                               unsigned long long desc_b, int scale_d) {
        asm volatile(
                "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
                "wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3 "
                "{"
                "%0, %1, %2, %3, %4, %5, %6, %7,"
                " %8, %9, %10, %11, %12, %13, %14, %15,"
                " %16, %17, %18, %19, %20, %21, %22, %23,"
                " %24, %25, %26, %27, %28, %29, %30, %31,"
                " %32, %33, %34, %35, %36, %37, %38, %39,"
                " %40, %41, %42, %43, %44, %45, %46, %47,"
                " %48, %49, %50, %51, %52, %53, %54, %55,"
                " %56, %57, %58, %59, %60, %61, %62, %63"
                "}, %64, %65, p, 1, 1;\n}\n"
                : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]),
                  "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                  "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]),
                  "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
                  "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
                  "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),
                  "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
                  "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]),
                  "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
                  "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]),
                  "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
                  "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]),
                  "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
                : "l"(desc_a), "l"(desc_b), "r"(scale_d));
    }
};

template <>
struct WgmmaE4m3<192> {
    static __device__ __forceinline__ void mma(float (&d)[96], unsigned long long desc_a,
                                               unsigned long long desc_b, int scale_d) {
        asm volatile(
                "{\n.reg .pred p;\nsetp.ne.b32 p, %98, 0;\n"
                "wgmma.mma_async.sync.aligned.m64n192k32.f32.e4m3.e4m3 "
                "{"
                "%0, %1, %2, %3, %4, %5, %6, %7,"
                " %8, %9, %10, %11, %12, %13, %14, %15,"
                " %16, %17, %18, %19, %20, %21, %22, %23,"
                " %24, %25, %26, %27, %28, %29, %30, %31,"
                " %32, %33, %34, %35, %36, %37, %38, %39,"
                " %40, %41, %42, %43, %44, %45, %46, %47,"
                " %48, %49, %50, %51, %52, %53, %54, %55,"
                " %56, %57, %58, %59, %60, %61, %62, %63,"
                " %64, %65, %66, %67, %68, %69, %70, %71,"
                " %72, %73, %74, %75, %76, %77, %78, %79,"
                " %80, %81, %82, %83, %84, %85, %86, %87,"
                " %88, %89, %90, %91, %92, %93, %94, %95"
                "}, %96, %97, p, 1, 1;\n}\n"
                : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]),
                  "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                  "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]),
                  "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
                  "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
                  "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),
                  "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
                  "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]),
                  "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
                  "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]),
                  "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
                  "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]),
                  "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),
                  "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]),
                  "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
                  "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]),
                  "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]),
                  "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]),
                  "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]),
                  "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]),
                  "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95])
                : "l"(desc_a), "l"(desc_b), "r"(scale_d));
    }
};

template <>
struct WgmmaE4m3<256> {
    static __device__ __forceinline__ void mma(float (&d)[128], unsigned long long desc_a,
                                               unsigned long long desc_b, int scale_d) {
        asm volatile(
                "{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
                "wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3 "
                "{"
                "%0, %1, %2, %3, %4, %5, %6, %7,"
                " %8, %9, %10, %11, %12, %13, %14, %15,"
                " %16, %17, %18, %19, %20, %21, %22, %23,"
                " %24, %25, %26, %27, %28, %29, %30, %31,"
                " %32, %33, %34, %35, %36, %37, %38, %39,"
                " %40, %41, %42, %43, %44, %45, %46, %47,"
                " %48, %49, %50, %51, %52, %53, %54, %55,"
                " %56, %57, %58, %59, %60, %61, %62, %63,"
                " %64, %65, %66, %67, %68, %69, %70, %71,"
                " %72, %73, %74, %75, %76, %77, %78, %79,"
                " %80, %81, %82, %83, %84, %85, %86, %87,"
                " %88, %89, %90, %91, %92, %93, %94, %95,"
                " %96, %97, %98, %99, %100, %101, %102, %103,"
                " %104, %105, %106, %107, %108, %109, %110, %111,"
                " %112, %113, %114, %115, %116, %117, %118, %119,"
                " %120, %121, %122, %123, %124, %125, %126, %127"
                "}, %128, %129, p, 1, 1;\n}\n"
                : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]),
                  "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                  "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]),
                  "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
                  "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
                  "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),
                  "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
                  "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]),
                  "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
                  "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]),
                  "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
                  "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]),
                  "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),
                  "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]),
                  "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
                  "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]),
                  "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]),
                  "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]),
                  "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]),
                  "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]),
                  "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]),
                  "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]),
                  "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
                  "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]),
                  "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]),
                  "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]),
                  "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]),
                  "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]),
                  "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
                : "l"(desc_a), "l"(desc_b), "r"(scale_d));
    }
};

template <>
struct WgmmaE5m2<8> {
    static __device__ __forceinline__ void mma(float (&d)[4], unsigned long long desc_a,
                                               unsigned long long desc_b, int scale_d) {
        asm volatile(
                "{\n.reg .pred p;\nsetp.ne.b32 p, %6, 0;\n"
                "wgmma.mma_async.sync.aligned.m64n8k32.f32.e5m2.e5m2 "
                "{"
                "%0, %1, %2, %3"
                "}, %4, %5, p, 1, 1;\n}\n"
                : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                : "l"(desc_a), "l"(desc_b), "r"(scale_d));
    }
};

template <>
struct WgmmaE5m2<16> {
    static __device__ __forceinline__ void mma(float (&d)[8], unsigned long long desc_a,
                                               unsigned long long desc_b, int scale_d) {
        asm volatile(
                "{\n.reg .pred p;\nsetp.ne.b32 p, %10, 0;\n"
                "wgmma.mma_async.sync.aligned.m64n16k32.f32.e5m2.e5m2 "
                "{"
                "%0, %1, %2, %3, %4, %5, %6, %7"
                "}, %8, %9, p, 1, 1;\n}\n"
                : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]),
                  "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7])
                : "l"(desc_a), "l"(desc_b), "r"(scale_d));
    }
};

template <>
struct WgmmaE5m2<32> {
    static __device__ __forceinline__ void mma(float (&d)[16], unsigned long long desc_a,
                                               unsigned long long desc_b, int scale_d) {
        asm volatile(
                "{\n.reg .pred p;\nsetp.ne.b32 p, %18, 0;\n"
                "wgmma.mma_async.sync.aligned.m64n32k32.f32.e5m2.e5m2 "
                "{"
                "%0, %1, %2, %3, %4, %5, %6, %7,"
                " %8, %9, %10, %11, %12, %13, %14, %15"
                "}, %16, %17, p, 1, 1;\n}\n"
                : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]),
                  "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                  "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15])
                : "l"(desc_a), "l"(desc_b), "r"(scale_d));
    }
};

template <>
struct WgmmaE5m2<48> {
    static __device__ __forceinline__ void mma(float (&d)[24], unsigned long long desc_a,
                                               unsigned long long desc_b, int scale_d) {
        asm volatile(
                "{\n.reg .pred p;\nsetp.ne.b32 p, %26, 0;\n"
                "wgmma.mma_async.sync.aligned.m64n48k32.f32.e5m2.e5m2 "
                "{"
                "%0, %1, %2, %3, %4, %5, %6, %7,"
                " %8, %9, %10, %11, %12, %13, %14, %15,"
                " %16, %17, %18, %19, %20, %21, %22, %23"
                "}, %24, %25, p, 1, 1;\n}\n"
                : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]),
                  "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                  "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]),
                  "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23])
                : "l"(desc_a), "l"(desc_b), "r"(scale_d));
    }
};

template <>
struct WgmmaE5m2<64> {
    static __device__ __forceinline__ void mma(float (&d)[32], unsigned long long desc_a,
                                               unsigned long long desc_b, int scale_d) {
        asm volatile(
                "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
                "wgmma.mma_async.sync.aligned.m64n64k32.f32.e5m2.e5m2 "
                "{"
                "%0, %1, %2, %3, %4, %5, %6, %7,"
                " %8, %9, %10, %11, %12, %13, %14, %15,"
                " %16, %17, %18, %19, %20, %21, %22, %23,"
                " %24, %25, %26, %27, %28, %29, %30, %31"
                "}, %32, %33, p, 1, 1;\n}\n"
                : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]),
                  "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                  "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]),
                  "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
                  "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
                : "l"(desc_a), "l"(desc_b), "r"(scale_d));
    }
};

template <>
struct WgmmaE5m2<128> {
    static __device__ __forceinline__ void mma(float (&d)[64], unsigned long long desc_a,
                                               unsigned long long desc_b, int scale_d) {
        asm volatile(
                "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
                "wgmma.mma_async.sync.aligned.m64n128k32.f32.e5m2.e5m2 "
                "{"
                "%0, %1, %2, %3, %4, %5, %6, %7,"
                " %8, %9, %10, %11, %12, %13, %14, %15,"
                " %16, %17, %18, %19, %20, %21, %22, %23,"
                " %24, %25, %26, %27, %28, %29, %30, %31,"
                " %32, %33, %34, %35, %36, %37, %38, %39,"
                " %40, %41, %42, %43, %44, %45, %46, %47,"
                " %48, %49, %50, %51, %52, %53, %54, %55,"
                " %56, %57, %58, %59, %60, %61, %62, %63"
                "}, %64, %65, p, 1, 1;\n}\n"
                : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]),
                  "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                  "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]),
                  "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
                  "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
                  "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),
                  "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
                  "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]),
                  "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
                  "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]),
                  "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
                  "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]),
                  "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
                : "l"(desc_a), "l"(desc_b), "r"(scale_d));
    }
};

template <>
struct WgmmaE5m2<192> {
    static __device__ __forceinline__ void mma(float (&d)[96], unsigned long long desc_a,
                                               unsigned long long desc_b, int scale_d) {
        asm volatile(
                "{\n.reg .pred p;\nsetp.ne.b32 p, %98, 0;\n"
                "wgmma.mma_async.sync.aligned.m64n192k32.f32.e5m2.e5m2 "
                "{"
                "%0, %1, %2, %3, %4, %5, %6, %7,"
                " %8, %9, %10, %11, %12, %13, %14, %15,"
                " %16, %17, %18, %19, %20, %21, %22, %23,"
                " %24, %25, %26, %27, %28, %29, %30, %31,"
                " %32, %33, %34, %35, %36, %37, %38, %39,"
                " %40, %41, %42, %43, %44, %45, %46, %47,"
                " %48, %49, %50, %51, %52, %53, %54, %55,"
                " %56, %57, %58, %59, %60, %61, %62, %63,"
                " %64, %65, %66, %67, %68, %69, %70, %71,"
                " %72, %73, %74, %75, %76, %77, %78, %79,"
                " %80, %81, %82, %83, %84, %85, %86, %87,"
                " %88, %89, %90, %91, %92, %93, %94, %95"
                "}, %96, %97, p, 1, 1;\n}\n"
                : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]),
                  "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                  "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]),
                  "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
                  "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
                  "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),
                  "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
                  "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]),
                  "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
                  "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]),
                  "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
                  "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]),
                  "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),
                  "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]),
                  "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
                  "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]),
                  "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]),
                  "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]),
                  "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]),
                  "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]),
                  "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95])
                : "l"(desc_a), "l"(desc_b), "r"(scale_d));
    }
};

template <>
struct WgmmaE5m2<256> {
    static __device__ __forceinline__ void mma(float (&d)[128], unsigned long long desc_a,
                                               unsigned long long desc_b, int scale_d) {
        asm volatile(
                "{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
                "wgmma.mma_async.sync.aligned.m64n256k32.f32.e5m2.e5m2 "
                "{"
                "%0, %1, %2, %3, %4, %5, %6, %7,"
                " %8, %9, %10, %11, %12, %13, %14, %15,"
                " %16, %17, %18, %19, %20, %21, %22, %23,"
                " %24, %25, %26, %27, %28, %29, %30, %31,"
                " %32, %33, %34, %35, %36, %37, %38, %39,"
                " %40, %41, %42, %43, %44, %45, %46, %47,"
                " %48, %49, %50, %51, %52, %53, %54, %55,"
                " %56, %57, %58, %59, %60, %61, %62, %63,"
                " %64, %65, %66, %67, %68, %69, %70, %71,"
                " %72, %73, %74, %75, %76, %77, %78, %79,"
                " %80, %81, %82, %83, %84, %85, %86, %87,"
                " %88, %89, %90, %91, %92, %93, %94, %95,"
                " %96, %97, %98, %99, %100, %101, %102, %103,"
                " %104, %105, %106, %107, %108, %109, %110, %111,"
                " %112, %113, %114, %115, %116, %117, %118, %119,"
                " %120, %121, %122, %123, %124, %125, %126, %127"
                "}, %128, %129, p, 1, 1;\n}\n"
                : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]),
                  "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                  "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]),
                  "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
                  "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
                  "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),
                  "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
                  "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]),
                  "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
                  "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]),
                  "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
                  "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]),
                  "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),
                  "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]),
                  "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
                  "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]),
                  "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]),
                  "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]),
                  "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]),
                  "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]),
                  "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]),
                  "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]),
                  "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
                  "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]),
                  "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]),
                  "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]),
                  "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]),
                  "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]),
                  "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
                : "l"(desc_a), "l"(desc_b), "r"(scale_d));
    }
};
