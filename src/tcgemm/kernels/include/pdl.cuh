// pdl.cuh — programmatic dependent launch (sm_90): let the next GEMM's CTAs
// start while this one finishes.
//
// Kernels in one stream normally run strictly one after the other: the next
// grid is launched only once the last CTA of this one has exited and its
// writes are flushed, and then every CTA pays its prologue (barrier set-up,
// tensor-map prefetch, the cluster barrier) before it loads anything.  A
// launch with the programmatic-stream-serialization attribute (the host:
// tcgemm.launch, KernelSpec.pdl) may begin as soon as every CTA of the grid
// before it has executed griddepcontrol.launch_dependents (or exited): its
// CTAs take SMs as they free up and run their prologue early.  The price is
// griddepcontrol.wait, which every such kernel must execute before its first
// access to global memory: it returns once the grid before has completed
// and its memory is visible.  Launched without the attribute (or after a
// kernel that never signals), wait returns at once and signalling is a no-op.
#pragma once

__device__ __forceinline__ void grid_dependency_wait() {
    asm volatile("griddepcontrol.wait;" ::: "memory");
}
__device__ __forceinline__ void grid_dependents_launch() {
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
}
