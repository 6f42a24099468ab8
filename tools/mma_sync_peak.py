"""The ceiling of the mma.sync path on this GPU: tensor-core throughput of back-to-back
``mma.sync`` instructions with operands already in registers (no memory traffic at all).

Issue 3 asks how close the best mma.sync GEMM (mma_pipeline) gets to cuBLAS, which on Hopper
uses wgmma; this measures what mma.sync itself can deliver, so the GEMM's figure can be read
as a fraction of its own instruction's peak too.

Each warp runs CHAINS independent accumulator chains (enough to cover the MMA latency) for
ITERS iterations; every SM gets WARPS warps. Prints and optionally writes JSON:
    python tools/mma_sync_peak.py [--json out.json]
Needs a GPU and CuPy (NVRTC through cupy.RawKernel).
"""

from __future__ import annotations

import argparse
import json
import sys

SOURCE = r"""
extern "C" __global__ void peak(float* out, int iters) {
    // CHAINS independent m16n8kK accumulators; A and B fragments never change.
    float acc[CHAINS][4];
    unsigned a[4], b[2];
    for (int i = 0; i < 4; ++i) a[i] = 0x3c003c00u ^ (threadIdx.x * 0x9e37u + i);
    for (int i = 0; i < 2; ++i) b[i] = 0x3c003c00u ^ (threadIdx.x * 0x7f4au + i);
    for (int c = 0; c < CHAINS; ++c)
        for (int i = 0; i < 4; ++i) acc[c][i] = 0.0f;
    for (int it = 0; it < iters; ++it) {
#pragma unroll
        for (int c = 0; c < CHAINS; ++c) {
#if defined(KIND_F16)
            asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                         "{%0,%1,%2,%3};" : "+f"(acc[c][0]), "+f"(acc[c][1]), "+f"(acc[c][2]), "+f"(acc[c][3])
                         : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#elif defined(KIND_TF32)
            asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                         "{%0,%1,%2,%3};" : "+f"(acc[c][0]), "+f"(acc[c][1]), "+f"(acc[c][2]), "+f"(acc[c][3])
                         : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#else
            asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                         "{%0,%1,%2,%3};" : "+r"(*(int*)&acc[c][0]), "+r"(*(int*)&acc[c][1]),
                         "+r"(*(int*)&acc[c][2]), "+r"(*(int*)&acc[c][3])
                         : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#endif
        }
    }
    float s = 0.0f;
    for (int c = 0; c < CHAINS; ++c)
        for (int i = 0; i < 4; ++i) s += acc[c][i];
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
"""

# name: (define, k of one instruction, unit)
KINDS = {"fp16": ("KIND_F16", 16, "TFLOP/s"), "tf32": ("KIND_TF32", 8, "TFLOP/s"), "int8": ("KIND_S8", 32, "TOP/s")}


def measure(kind: str, warps: int = 16, chains: int = 8, iters: int = 4096) -> float:
    import cupy as cp

    define, k, _ = KINDS[kind]
    sms = cp.cuda.Device().attributes["MultiProcessorCount"]
    cc = cp.cuda.Device().compute_capability
    kernel = cp.RawKernel(SOURCE, "peak", options=(f"-D{define}", f"-DCHAINS={chains}", f"-arch=sm_{cc}"))
    blocks, threads = sms * 4, warps * 32 // 4  # 4 CTAs per SM of warps/4 warps each
    out = cp.empty(blocks * threads, dtype=cp.float32)
    kernel((blocks,), (threads,), (out, cp.int32(64)))  # warm-up (and compile)
    times = []
    for _ in range(5):
        start, stop = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        kernel((blocks,), (threads,), (out, cp.int32(iters)))
        stop.record()
        stop.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, stop) / 1e3)
    seconds = sorted(times)[len(times) // 2]
    macs = blocks * (threads // 32) * iters * chains * 16 * 8 * k
    return 2 * macs / seconds / 1e12


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", help="write the figures here")
    args = parser.parse_args(argv)
    try:
        import cupy  # noqa: F401
    except ImportError:
        print("mma_sync_peak needs CuPy and a GPU", file=sys.stderr)
        return 2
    record = {}
    for kind, (_, _, unit) in KINDS.items():
        best = max(measure(kind, warps=w, chains=c) for w in (8, 16) for c in (4, 8))
        record[kind] = best
        print(f"mma.sync {kind}: {best:.0f} {unit} (registers only, best of 8/16 warps per SM x 4/8 chains)")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"mma_sync_peak": record}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
