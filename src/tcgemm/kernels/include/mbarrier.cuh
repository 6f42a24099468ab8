// mbarrier.cuh — shared-memory transaction barriers (sm_90), as thin PTX wrappers.
//
// An mbarrier is a 64-bit word in shared memory that counts two things for
// its current *phase*: pending arrivals (set by init, decremented by arrive)
// and pending transaction bytes (raised by expect_tx, lowered by the TMA unit
// as bytes land, "complete_tx").  When both reach zero the phase completes, the
// barrier flips to the next phase (parity 0 -> 1 -> 0 ...) and re-arms its
// arrival count.  Waiters name the phase they wait for by its parity: a wait
// on parity P returns once the phase with parity P has completed, i.e. once
// the barrier's current phase parity differs from P.  Parity is only one bit,
// so a protocol must guarantee that a barrier never runs two phases ahead of
// any of its waiters (the kernels' headers say why theirs cannot).
//
// All addresses are 32-bit shared-window addresses (smem_u32).
#pragma once

__device__ __forceinline__ unsigned smem_u32(const void* p) {
    return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// One thread initialises; `count` arrivals complete each phase.
__device__ __forceinline__ void mbar_init(unsigned bar, unsigned count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}

// After the inits and before any other thread or the TMA unit (the async
// proxy) uses the barriers: make the initialised words visible to both.
// Follow with __syncthreads().
__device__ __forceinline__ void mbar_init_fence() {
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

// Arrive once and raise the phase's pending transaction count by `bytes`
// (the bytes the TMA loads issued against this barrier will deliver).
__device__ __forceinline__ void mbar_arrive_expect_tx(unsigned bar, unsigned bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
}

// Plain arrival (release semantics: this thread's earlier accesses are
// ordered before the phase completion that waiters observe).
__device__ __forceinline__ void mbar_arrive(unsigned bar) {
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
}

// Non-blocking probe: has the phase with this parity completed?
__device__ __forceinline__ bool mbar_try_wait(unsigned bar, unsigned parity) {
    unsigned done;
    asm volatile(
        "{\n.reg .pred p;\n"
        "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
        "selp.u32 %0, 1, 0, p;\n}\n"
        : "=r"(done)
        : "r"(bar), "r"(parity)
        : "memory");
    return done != 0;
}

// Block until the phase with this parity has completed (acquire semantics:
// the data the phase guarded, e.g. TMA-written shared memory, is visible).
// try_wait itself suspends the thread for a hardware time limit, so the loop
// does not burn issue slots.
__device__ __forceinline__ void mbar_wait(unsigned bar, unsigned parity) {
    while (!mbar_try_wait(bar, parity)) {
    }
}

// Nanoseconds since some epoch (the GPU's global timer).
__device__ __forceinline__ unsigned long long global_timer_ns() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

// mbar_wait with a watchdog: a phase that never completes (a protocol bug)
// faults after about TCGEMM_WATCHDOG_NS nanoseconds instead of hanging the GPU;
// the launch then fails with an error the host can report ("an illegal memory
// access was encountered": the watchdog stores to address 0).  No legitimate
// wait in a resident (persistent) kernel lasts more than microseconds.  The
// timer is first read after 1024 failed probes and then every 1024, so the
// waits of a running pipeline cost exactly what mbar_wait costs.  Define
// TCGEMM_WATCHDOG_NS=0 to wait forever.
// Why a faulting store and not trap: a trap anywhere in the consumer warpgroups
// caps ptxas's register allocation there at ~190 whatever setmaxnreg grants
// (fp8 with two partial arrays, 192 accumulator registers, spilled; with the
// store, none, and ptxas uses up to ~215).
#ifndef TCGEMM_WATCHDOG_NS
#define TCGEMM_WATCHDOG_NS 10000000000ull  // 10 s
#endif
__device__ __forceinline__ void watchdog_fault() {
    asm volatile("st.global.u32 [%0], %1;" ::"l"(0ull), "r"(0) : "memory");
}

// Spin on `probe()` (a try_wait) with the watchdog described above.
template <typename Probe>
__device__ __forceinline__ void wait_with_watchdog(Probe probe) {
    unsigned long long start = 0;
    for (unsigned spins = 1; !probe(); ++spins) {
        if (TCGEMM_WATCHDOG_NS != 0 && spins % 1024 == 0) {
            const unsigned long long now = global_timer_ns();
            if (start == 0) start = now;
            else if (now - start > TCGEMM_WATCHDOG_NS) watchdog_fault();
        }
    }
}

__device__ __forceinline__ void mbar_wait_guarded(unsigned bar, unsigned parity) {
    wait_with_watchdog([&] { return mbar_try_wait(bar, parity); });
}
