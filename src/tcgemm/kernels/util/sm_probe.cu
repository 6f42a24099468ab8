// sm_probe.cu — where the hardware puts the CTAs of a cluster launch (tcgemm/placement.py; not a GEMM).
//
// Each CTA records the SM it runs on (%smid) and stays resident for `spin` clocks, so that all
// CTAs of the first wave are placed while the others still run.  A cluster never spans two GPCs:
// the SMs of one cluster of 16, 8 or 4 CTAs, one CTA per SM (the host asks for enough shared
// memory to keep one per SM), are all in one GPC.  The host joins those sets into GPCs.
extern "C" __global__ void sm_probe(unsigned* out, long long spin) {
    unsigned smid;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
    if (threadIdx.x == 0) out[blockIdx.x] = smid;
    const long long t0 = clock64();
    while (clock64() - t0 < spin) {
    }
}
