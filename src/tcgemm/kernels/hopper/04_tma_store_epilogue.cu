// Hopper stage 4 — the epilogue through shared memory and TMA stores (sm_90a).
//
// What changes over stage 3 (wgmma_cluster) and why it is faster:
//  * In stages 1-3 the consumer warpgroups write D straight from their
//    accumulator registers: 64 four-byte stores per thread per tile, each
//    warp instruction covering 8 rows x 16 bytes (half-sector writes), and
//    the tensor cores idle until the last store has issued.
//  * Here each warpgroup writes its 64 x BLOCK_N tile into a swizzled shared
//    buffer with stmatrix (one instruction per 16 x 16 block, conflict-free),
//    one thread issues TMA stores of 64 x 64 boxes, and the warpgroup starts
//    the next tile's wgmmas while the TMA unit writes whole 128-byte lines
//    to global memory.  The stores' edges are clipped by D's tensor map, so
//    ragged M and N cost nothing.  (include/epilogue_tma.cuh has the details.)
//  * Cost: 2 x 32 KB of staging at BLOCK_N = 256, so the ring has one stage
//    fewer (3 x 48 KB); the producer still runs ahead across tiles.
//  * Fallback: fp32 D, or a D the host cannot describe with a tensor map
//    (not 16-byte aligned), is written from registers as in stage 3; the
//    kernel gets a flag (tma.cuh, TCGEMM_TMA_STORE_PERSISTENT_KERNEL).
//
// The main loop, the cluster protocol and the tile order are stage 3's: this
// file is stage 3 compiled with its epilogue switched.  CLUSTER_M = 1 configs
// run the same kernel without multicast (each CTA loads all of its B tile).
#define TMA_STORE_EPILOGUE 1
#include "hopper/03_cluster_multicast.cu"
