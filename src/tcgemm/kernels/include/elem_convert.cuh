// elem_convert.cuh — 16- and 32-bit float elements to fp32 and back (round to nearest even), for the elementwise
// kernels of kernels/util/ (gated_act.cu, quantize_fp8.cu, sum_blocks.cu), which do their arithmetic in fp32 and
// round once.  (The GEMM kernels' own conversions, with their integer cases, are gemm.cuh's.)
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>

__device__ __forceinline__ float to_f32(float v) { return v; }
__device__ __forceinline__ float to_f32(__half v) { return __half2float(v); }
__device__ __forceinline__ float to_f32(__nv_bfloat16 v) { return __bfloat162float(v); }
template <typename T> __device__ __forceinline__ T from_f32(float v);
template <> __device__ __forceinline__ float from_f32<float>(float v) { return v; }
template <> __device__ __forceinline__ __half from_f32<__half>(float v) { return __float2half_rn(v); }
template <> __device__ __forceinline__ __nv_bfloat16 from_f32<__nv_bfloat16>(float v) { return __float2bfloat16_rn(v); }
