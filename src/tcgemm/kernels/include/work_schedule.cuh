// work_schedule.cuh — which pieces of work each persistent cluster computes,
// in what order: whole tiles, split-K ranges, or a stream-K tail.
//
// A *unit* is one cluster's tile (CLUSTER_M stacked output tiles, see
// unit_coord in the kernel); `ktiles` k-tiles make a whole unit.  Cluster c of
// C walks:
//   * data-parallel units c, c + C, c + 2C, ... (the plain persistent loop);
//   * SPLITS > 1 (split-K): every unit in SPLITS consecutive k ranges, each
//     range a work item handed out like a unit above;
//   * STREAM (stream-K tail): when the units do not fill whole waves (say
//     256 units on C = 66 clusters: 3.88 waves, so in the fourth 8 clusters
//     idle while 58 finish their last tile — 3 % of the run), the last
//     partial wave and one full wave before it are not handed out as units.
//     Their k-tiles, laid end to end (unit after unit, S in all), are cut
//     into C equal ranges: cluster c takes iterations [c S / C, (c+1) S / C).
//     Every cluster then finishes at the same time, give or take one k-tile.
//     A range may start inside one unit and end inside another: those units
//     are computed in pieces by two clusters, whose partial tiles split_k.cuh
//     adds up.  Each range is at least `ktiles` long (S >= C ktiles: the full
//     wave taken along), so a unit meets at most two ranges: 2 pieces at most.
// The producer and the consumers of a CTA walk the same sequence, and both
// CTAs of a cluster the same one (each computing its own tile of the unit).
#pragma once
#include "cluster.cuh"

struct Work {
    int unit;      // cluster tile unit
    int kt0, kt1;  // its k-tiles [kt0, kt1)
};

template <int SPLITS, bool STREAM>
struct WorkSchedule {
    static_assert(SPLITS == 1 || !STREAM, "split-K or stream-K, not both");
    // The consumers hold 128 accumulators through the main loop, with little room for anything else,
    // so the state kept between pieces is one counter: each call works out the next piece from it and
    // the cluster's id (re-read from its special register, never kept).
    int units, ktiles;
    int n;  // pieces this cluster has been handed

    __device__ WorkSchedule(int units_, int ktiles_) : units(units_), ktiles(ktiles_), n(0) {}

    __device__ int dp_units(int step) const {
        return STREAM && units > step && units % step != 0 ? (units / step - 1) * step : units;
    }
    __device__ int per_split() const { return (ktiles + SPLITS - 1) / SPLITS; }  // (the last range: fewer, or none)

    __device__ bool next(Work& w) {
        if constexpr (SPLITS == 1 && !STREAM) {  // the plain persistent loop: units me, me + C, ...
            const int unit = cluster_id_x() + n++ * cluster_count_x();
            w = {unit, 0, ktiles};
            return unit < units;
        }
        const int me = cluster_id_x(), step = cluster_count_x();
        const int dp = dp_units(step), items = dp * SPLITS;
        const int mine = me < items ? (items - me + step - 1) / step : 0;  // data-parallel items of this cluster
        const int j = n++;
        if (j < mine) {
            const int item = me + j * step;
            w.unit = item / SPLITS;
            w.kt0 = min(ktiles, item % SPLITS * per_split());
            w.kt1 = min(ktiles, w.kt0 + per_split());
            return true;
        }
        if (!STREAM || dp == units) return false;
        const long long total = (long long)(units - dp) * ktiles;
        const long long it0 = total * me / step, it_end = total * (me + 1) / step;
        const int rel = (int)(it0 / ktiles) + (j - mine);  // streamed unit
        const long long begin = (long long)rel * ktiles;
        const long long start = j == mine ? it0 : begin;
        if (start >= it_end) return false;
        w.unit = dp + rel;
        w.kt0 = (int)(start - begin);
        w.kt1 = (int)min((long long)ktiles, it_end - begin);
        return true;
    }

    // The pieces of w's unit (1: w is the whole unit, no reduction), which one w is, and the unit's
    // place in the workspace of partial tiles.  Streamed units have two pieces at most (see above),
    // and the one starting at k-tile 0 is piece 0.
    __device__ int pieces(const Work& w) const {
        const int dp = dp_units(cluster_count_x());
        if (w.unit < dp) return SPLITS;
        return w.kt0 == 0 && w.kt1 == ktiles ? 1 : 2;
    }
    __device__ int piece(const Work& w) const {
        return w.unit < dp_units(cluster_count_x()) ? w.kt0 / per_split() : w.kt0 > 0;
    }
    __device__ int slot(const Work& w) const {
        const int dp = dp_units(cluster_count_x());
        return w.unit < dp ? w.unit : w.unit - dp;
    }
};

// Pieces per unit the workspace must hold (split_k.cuh's slices): see above.
template <int SPLITS, bool STREAM>
constexpr int max_pieces() {
    return STREAM ? 2 : SPLITS;
}
