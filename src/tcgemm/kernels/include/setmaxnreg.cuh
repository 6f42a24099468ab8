// setmaxnreg (sm_90a): a warpgroup hands registers back (dec) or takes them (inc), so that the producer
// warp runs on few registers and the consumer warpgroups that hold the accumulators get the rest. It only
// takes effect in a kernel with a register cap at entry (__launch_bounds__(threads, 1)) where each
// warpgroup's role is one branch; ptxas warns (C7508) when it ignores it.
#pragma once

template <int REGS>
__device__ __forceinline__ void setmaxnreg_dec() {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(REGS));
}
template <int REGS>
__device__ __forceinline__ void setmaxnreg_inc() {
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(REGS));
}
