"""Writes src/tcgemm/kernels/include/wgmma_ops.cuh: every wgmma instruction wrapper, one per type and N.

The operand lists of wgmma (N/2 accumulator registers, one asm operand each) are too long to write by
hand without typos, so they are generated, all from the table below. Run from the repository root:
    python3 tools/gen_wgmma_ops.py
"""

from __future__ import annotations

from pathlib import Path

HEADER = '''\
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
'''

KINDS = {
    # struct, accumulator C type, constraint, k, type suffix, trailing immediates (scale-a, scale-b)
    "WgmmaTf32": ("float", "f", 8, "f32.tf32.tf32", ", 1, 1"),
    "WgmmaS8": ("int", "r", 32, "s32.s8.s8", ""),
    "WgmmaE4m3": ("float", "f", 32, "f32.e4m3.e4m3", ", 1, 1"),
    "WgmmaE5m2": ("float", "f", 32, "f32.e5m2.e5m2", ", 1, 1"),
}
WIDTHS = {"WgmmaTf32": (8, 16, 32, 64, 128, 192, 256), "WgmmaS8": (64, 128, 192, 256),
          "WgmmaE4m3": (8, 16, 32, 48, 64, 128, 192, 256), "WgmmaE5m2": (8, 16, 32, 48, 64, 128, 192, 256)}
WIDTHS_16BIT = (8, 16, 32, 48, 64, 80, 96, 104, 112, 128, 144, 152, 160, 176, 192, 224, 232, 256)


def _operands(regs: int, con: str, indent: str) -> tuple[str, str]:
    """The asm template's accumulator list and the matching output operands."""
    lines = []
    for row in range(0, regs, 8):
        lines.append(f'{indent}"' + (" " if row else "") + ", ".join(f"%{i}" for i in range(row, min(row + 8, regs)))
                     + ("," if row + 8 < regs else "") + '"')
    outs = []
    for row in range(0, regs, 4):
        outs.append(indent + "  " + ", ".join(f'"+{con}"(d[{i}])' for i in range(row, row + 4)))
    return "\n".join(lines), (",\n").join(outs).lstrip()


def specialisation(struct: str, n: int) -> str:
    ctype, con, k, types, imms = KINDS[struct]
    regs = n // 2
    lines, outs = _operands(regs, con, " " * 16)
    rs = ""
    if struct == "WgmmaTf32":  # A from registers (RS): 4 tf32 values a thread, the mma.m16n8k8 fragment per warp
        rs = f'''
    static __device__ __forceinline__ void mma_rs({ctype} (&d)[{regs}], const unsigned (&a)[4],
                                                  unsigned long long desc_b, int scale_d) {{
        asm volatile(
                "{{\\n.reg .pred p;\\nsetp.ne.b32 p, %{regs + 5}, 0;\\n"
                "wgmma.mma_async.sync.aligned.m64n{n}k{k}.{types} "
                "{{"
{lines}
                "}}, {{%{regs}, %{regs + 1}, %{regs + 2}, %{regs + 3}}}, %{regs + 4}, p{imms};\\n}}\\n"
                : {outs}
                : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(scale_d));
    }}'''
    return f'''
template <>
struct {struct}<{n}> {{
    static __device__ __forceinline__ void mma({ctype} (&d)[{regs}], unsigned long long desc_a,
                                               unsigned long long desc_b, int scale_d) {{
        asm volatile(
                "{{\\n.reg .pred p;\\nsetp.ne.b32 p, %{regs + 2}, 0;\\n"
                "wgmma.mma_async.sync.aligned.m64n{n}k{k}.{types} "
                "{{"
{lines}
                "}}, %{regs}, %{regs + 1}, p{imms};\\n}}\\n"
                : {outs}
                : "l"(desc_a), "l"(desc_b), "r"(scale_d));
    }}{rs}
}};
'''


def specialisation_16bit(n: int) -> str:
    """Wgmma<n, BF16, TRANS_A, TRANS_B>: bf16 or f16 inputs, either operand K- or MN-major."""
    regs = n // 2
    lines, outs = _operands(regs, "f", " " * 16)

    def asm(types: str) -> str:
        return f'''            asm volatile(
                "{{\\n.reg .pred p;\\nsetp.ne.b32 p, %{regs + 2}, 0;\\n"
                "wgmma.mma_async.sync.aligned.m64n{n}k16.{types} "
                "{{"
{lines}
                "}}, %{regs}, %{regs + 1}, p, 1, 1, %{regs + 3}, %{regs + 4};\\n}}\\n"
                : {outs}
                : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(TRANS_A), "n"(TRANS_B));'''

    return f'''
template <bool BF16, int TRANS_A, int TRANS_B>
struct Wgmma<{n}, BF16, TRANS_A, TRANS_B> {{
    static __device__ __forceinline__ void mma(float (&d)[{regs}], unsigned long long desc_a,
                                               unsigned long long desc_b, int scale_d) {{
        if constexpr (BF16)
{asm("f32.bf16.bf16")}
        else
{asm("f32.f16.f16")}
    }}
}};
'''


def main() -> None:
    text = HEADER
    for n in WIDTHS_16BIT:
        text += specialisation_16bit(n)
    for struct in KINDS:
        for n in WIDTHS[struct]:
            text += specialisation(struct, n)
    out = Path(__file__).resolve().parent.parent / "src/tcgemm/kernels/include/wgmma_ops.cuh"
    out.write_text(text)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
