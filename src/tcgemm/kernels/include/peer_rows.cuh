// peer_rows.cuh — tensor-parallel GEMMs in one persistent launch (tcgemm.distributed, transport "fused";
// hopper/04_tma_store_epilogue.cu with PEER_ROWS = 1 or 2).
//
// Launching one GEMM per peer's chunk (the "copy" transport) pays each launch's ramp and last partial wave
// W times, and a barrier kernel between launches; at four ranks that was most of the exposed time
// (docs/tensor-parallel.md). Here one persistent launch walks the whole product, rank by rank's rows in the
// order they are ready, and the rows' progress is told through flags in memory.
//
// The walk (peer_unit_coord): the units of one rank's rows, in unit_coord's grouped order within them, then
// the next rank's: as if the W row blocks were batch entries, taken from block `first` on.  Walking the whole
// matrix in groups of GROUP_UNITS unit rows instead (rows rotated only) put two ranks' rows in one group where
// a rank's rows are fewer than a group's: at 4 ranks and M = 4096 (1024 rows each, groups of 2048) half the
// first wave waited for the first shard to land, and a reduce-scatter's block was whole only when the group
// after it was done.
//
// PEER_ROWS = 1, all-gather + GEMM.  A is the W x seg_rows rows of every rank: this rank's own shard (the
// launch's A map, rows 0 .. seg_rows - 1) and the peers' shards in the inbox of its symmetric buffer (the
// PeerRows map, rank s's rows at s * seg_rows).  The walk starts at the own shard's rows (first = rank),
// then rank + 1's, rank + 2's, ...: the order in which the peers' copy engines push them (each rank pushes to
// rank - 1 first, so every rank receives one shard per step).  Before the first load of a tile
// from rank s's rows, the producer waits until ready[s] is set: a 4-byte copy the sender's stream issues
// after the copy of the rows, so the flag lands after the rows (stream order; the rows were written by a
// copy engine, read here by TMA: the acquire load, then a proxy fence before the async-proxy reads).
//
// PEER_ROWS = 2, GEMM + reduce-scatter.  D holds the partial products of every rank's row block, block b
// for rank b; the walk starts at block rank + 1's rows (first = rank + 1, the first to leave) and ends with
// the own block.
// When a warpgroup's tiles are stored, their rows count into ready[b]; a side stream waits for ready[b] to reach
// seg_rows x tiles_n (cuStreamWaitValue32: no SM) and has a copy engine push block b to its owner while the
// GEMM goes on.  Counting waits for the tiles' TMA stores to have written D (wait_group 0, not .read) and
// publishes them with a system-scope release (MEMBAR.ALL.SYS, then the reduction), which stalls the warpgroup's
// epilogue: so a warpgroup counts the rows of a block once, at the epilogue of its first tile past the block (a
// whole main loop after the block's last tile, so the wait costs nothing), and the last block after the loop.
// The push of a block waits for every tile of it either way, so the block leaves no later than when each tile
// was counted at the next tile's epilogue (PEER_COUNT_BATCH = 0, kept for an A/B).  Tiles below the matrix (a
// cluster's spare CTA) store nothing new and count nothing.
//
// PEER_ROWS = 3, the own block of the copy transport's reduce-scatter (tcgemm.distributed.pushes): a plain GEMM
// of this rank's block whose stored tiles are announced, in the order their stores complete, in a queue the
// reduce-scatter's sum (kernels/util/sum_blocks.cu, sum_queue) consumes while the GEMM still runs.  The sum
// (own partial product + the peers' ones in the inbox) was the one exposed pass of that transport: W + 1
// blocks' bytes over HBM after the last GEMM, ~2.5% of a two-rank call.  This kernel lets its dependent launch
// start at once (programmatic dependent launch: griddepcontrol.launch_dependents by every CTA right after its
// start, so every CTA of the GEMM is resident before any CTA of the sum is placed, and the sum's waits on
// entries cannot starve a GEMM CTA of an SM); the sum's CTAs then take the SMs that GEMM CTAs leave in the
// last, partial round of tiles, summing the tiles of the rounds before, and what is left after the GEMM is the
// last round's tiles.  Queue (`queue`): [0] entries appended, [1] claimed, [2] consumed, [3] unused, then one
// u32 per entry: bit 31 set, the stored rows' first row / 8 in bits 14..30, the first column / 8 in bits 0..13
// (a consumer warpgroup's WG_M rows x BLOCK_N columns; the host checks the ranges and that every tile lies inside
// the matrix, so the count of entries is tiles x CONSUMERS).  The sum resets it for the next call.
//
// PEER_ROWS = 4, the fused reduce-scatter (2) whose own block's tiles are also queued (3): one launch over every
// rank's rows, the own block walked last, and its sum under the launch's last, partial round of tiles.
//
// Every mode needs every cluster's tiles inside one rank's rows (seg_rows a multiple of CTAS_M x BLOCK_M: the host
// checks) and no split-K.
// The launch's workspace pointer carries the PeerRows block; the tail split's partial tiles (tail_split.cuh)
// go to the block's own buffer instead.
#pragma once
#include "hopper_config.cuh"
#include "block_scales.cuh"
#include "group_rows.cuh"
#include "hopper_sched.cuh"
#include "mbarrier.cuh"
#include "tma.cuh"

#ifndef PEER_ROWS
#define PEER_ROWS 0
#endif
constexpr bool kPeerRows = PEER_ROWS != 0;
constexpr bool kPeerGather = PEER_ROWS == 1;
constexpr bool kPeerSignal = PEER_ROWS == 2 || PEER_ROWS == 4;
constexpr bool kPeerQueue = PEER_ROWS == 3 || PEER_ROWS == 4;
constexpr bool kPeerWalk = kPeerGather || kPeerSignal;  // (the walk of every rank's rows; the queue's is the plain one)
#ifndef PEER_COUNT_BATCH
#define PEER_COUNT_BATCH 1  // 0: PEER_ROWS = 2 counts every tile at the next tile's epilogue, as before (for an A/B)
#endif
constexpr bool kPeerCountBatch = PEER_COUNT_BATCH != 0;
static_assert(!kPeerRows || (SPLIT_K == 1 && !kDTransposed && !kBlockScales && !kGroupRows),
              "PEER_ROWS: no split-K, D not transposed, no block scales, not grouped");
static_assert(!kPeerQueue || !kPingpong, "PEER_ROWS = 3: cooperative consumers (an entry is one consumer's rows)");
constexpr int QUEUE_HEAD = 4;  // PEER_ROWS = 3: the queue's counters before its entries

constexpr int PEER_MAX_WORLD = 32;  // (one bit per rank in the producer's mask of landed shards)

// One per rank and shape, written by the host (tcgemm/distributed/fused.py: _peer_block) into device memory
// of its own; the flags it points to are in the rank's symmetric buffer, where the peers reach them.
struct PeerRows {  // (layout fixed: fused.py writes it; the static_assert below checks the offsets)
    TmaDesc inbox;  // PEER_ROWS = 1: the inbox, (world x seg_rows) x K, rank s's rows at s x seg_rows
    int world, rank, seg_rows, first;  // first: the rank whose rows the walk starts with
    unsigned* ready;  // [world]: 1, rank s's rows have landed (a peer's copy sets it); 2, rows of block b stored,
                      // summed over the tile columns (this kernel adds them); reset by the host after each call
    float* tail_ws;   // TAIL_SPLIT's partial tiles (null: no split)
    unsigned* queue;  // 3, 4: the queue of the own block's stored tiles (above); rows counted from the block's first
};

// The offsets fused.py's _peer_block writes: the 128-byte descriptor, four ints at 128, the pointers at 144,
// 152 and 160, then padding to the descriptor's 64-byte alignment; natural alignment leaves these members no other
// layout. (Checked by size: NVRTC 13.0, the GPU machine's, rejects __builtin_offsetof in a static_assert where
// 13.5 takes it, and offsetof needs <cstddef>, which NVRTC lacks.)
static_assert(sizeof(TmaDesc) == 128 && sizeof(PeerRows) == 192 && alignof(PeerRows) == 64,
              "PeerRows' layout as tcgemm/distributed/fused.py's _peer_block writes it");

// The tail split's workspace: the launch's, or with PEER_ROWS the block's.  (Read from device memory, not the
// kernel's parameters, ptxas keeps it across the tail tile's reduction by one 8-byte spill in 128 x 256 builds:
// a store and two loads per tail tile, the only local memory of these builds.)
__device__ __forceinline__ float* split_workspace(float* workspace) {
    if constexpr (kPeerRows) return reinterpret_cast<const PeerRows*>(workspace)->tail_ws;
    return workspace;
}

// Unit u of the walk -> this CTA's tile: the rows of rank first, first + 1, ... (mod world), each rank's units in
// unit_coord's order.  (u past the last unit, as COORD_SHADOW's look-ahead asks, gives rows past M: never used.)
__device__ __forceinline__ TileCoord peer_unit_coord(int u, int units_m, int units_n, int rank, const PeerRows* p) {
    const int world = __ldg(&p->world);
    const int seg_units = units_m / world;  // unit rows of one rank's rows
    const int per_seg = seg_units * units_n;
    const int v = u / per_seg;
    TileCoord c = unit_coord(u - v * per_seg, seg_units, units_n, rank);
    const int s = __ldg(&p->first) + v;
    c.m0 += (s >= world && v < world ? s - world : s) * __ldg(&p->seg_rows);
    return c;
}

// PEER_ROWS = 1: the map and row that A's box of rows m_load comes from — the own shard's (the launch's map,
// rows from 0) or the inbox, once the sender's rows have landed (`landed`: the producer's mask of ranks seen).
__device__ __forceinline__ const TmaDesc* peer_a_source(const PeerRows* p, const TmaDesc* own, int& m_load,
                                                        unsigned& landed) {
    const int seg_rows = __ldg(&p->seg_rows);
    const int s = m_load / seg_rows;
    if (s == __ldg(&p->rank)) {
        m_load -= s * seg_rows;
        return own;
    }
    if (!((landed >> s) & 1u)) {
        const unsigned* flag = p->ready + s;
        wait_with_watchdog([&] {
            unsigned v;
            asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(flag) : "memory");
            if (!v) __nanosleep(128);
            return v != 0u;
        });
        asm volatile("fence.proxy.async.global;" ::: "memory");  // the TMA loads below read what the flag published
        landed |= 1u << s;
    }
    return &p->inbox;
}

// PEER_ROWS = 2: block `block` gains `rows`, the rows of tiles this thread's TMA stores wrote (one thread per
// warpgroup issues them: epilogue_tma.cuh).  -1: nothing pending.
__device__ __forceinline__ void peer_count_rows(const PeerRows* p, int block, int rows) {
    if (block < 0 || rows == 0) return;
    tma_store_wait<0>();  // the stores have written D (not only read shared memory)
    asm volatile("fence.proxy.async.global;" ::: "memory");
    asm volatile("red.release.sys.global.add.u32 [%0], %1;" ::"l"(p->ready + block), "r"(rows) : "memory");
}

// PEER_ROWS = 3, 4: the queue entry of the rows a consumer warpgroup stores at (m, n), or 0 (nothing to announce:
// rows of another rank's block).  Rows are counted from the own block's first.
__device__ __forceinline__ unsigned peer_queue_entry(const PeerRows* p, int m, int n) {
    const int seg_rows = __ldg(&p->seg_rows);
    if (m / seg_rows != __ldg(&p->rank)) return 0u;
    return 0x80000000u | (unsigned((m - m / seg_rows * seg_rows) >> 3) << 14) | unsigned(n >> 3);
}
// ... appended once this thread's TMA stores have written D (as peer_count_rows: wait_group 0, then the proxy fence,
// so the release store orders the async proxy's writes before the entry a sum CTA acquires).
__device__ __forceinline__ void peer_queue_tile(const PeerRows* p, unsigned entry) {
    if (entry == 0u) return;
    tma_store_wait<0>();
    asm volatile("fence.proxy.async.global;" ::: "memory");
    unsigned* q = p->queue;
    const unsigned pos = atomicAdd(q, 1u);
    asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(q + QUEUE_HEAD + pos), "r"(entry) : "memory");
}
