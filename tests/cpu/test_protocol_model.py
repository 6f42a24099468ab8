"""A model of the mbarrier protocols of the persistent Hopper kernels, run under random
interleavings: hopper/02_persistent.cu (one CTA) and hopper/03_cluster_multicast.cu (a cluster
whose CTAs multicast their part of B to each other).

The model follows the kernels line by line (producer thread, consumer warpgroups, slot/phase
counters that run on across tiles) and the PTX rules for mbarriers: a phase completes when its
pending arrivals AND its transaction count reach zero (the count may dip below zero when bytes
land before the expect_tx); a parity wait succeeds as soon as the barrier's current phase parity
differs from the one waited for. TMA copies, wgmma reads and remote arrivals are asynchronous
events that fire at random later times. Checked: no deadlock; every parity wait that succeeds
sees exactly the phase it meant (never one or two later, never an aliased earlier one); no
TMA write lands in a slot some warpgroup's wgmmas are still reading; every k-tile a consumer
multiplies is the complete, right one (its A and every part of B); nothing is in flight into a
CTA when it exits. No GPU involved: this checks the bookkeeping, not the hardware."""

from __future__ import annotations

import random

import pytest


class Barrier:
    def __init__(self, count: int) -> None:
        self.count = count
        self.pending = count
        self.tx = 0
        self.completed = 0  # phases completed so far

    def _check(self) -> None:
        if self.pending == 0 and self.tx == 0:
            self.completed += 1
            self.pending = self.count

    def arrive(self, expect_tx: int = 0) -> None:
        assert self.pending > 0
        self.tx += expect_tx
        self.pending -= 1
        self._check()

    def complete_tx(self, nbytes: int) -> None:
        self.tx -= nbytes
        assert abs(self.tx) < 2**20, "tx-count out of range"
        self._check()

    def parity_done(self, parity: int) -> bool:
        return (self.completed & 1) != parity


class Model:
    """One launch: `ctas` CTAs in clusters of `cluster`; every CTA walks `units` work units
    of `ktiles` k-tiles (the same sequence in every CTA of a cluster, as in the kernels)."""

    A_BYTES, B_BYTES = 16, 32  # per k-tile; B is split in `cluster` parts

    def __init__(self, rng: random.Random, cluster: int, stages: int, units: int, ktiles: int,
                 consumers: int = 2) -> None:
        self.rng = rng
        self.cluster, self.stages, self.units, self.ktiles, self.consumers = cluster, stages, units, ktiles, consumers
        self.full = [[Barrier(1) for _ in range(stages)] for _ in range(cluster)]
        self.empty = [[Barrier(consumers * cluster) for _ in range(stages)] for _ in range(cluster)]
        # slot contents: per CTA, per slot, part name -> k-tile index that landed there
        self.slot = [[{} for _ in range(stages)] for _ in range(cluster)]
        self.readers = [[0] * stages for _ in range(cluster)]  # wgmma groups reading the slot
        self.events: list = []  # pending asynchronous events (callables)
        self.exited = [False] * cluster

    # --- asynchronous machinery ---
    def post(self, fn) -> None:
        self.events.append(fn)

    def tma(self, dst_cta: int, s: int, part: str, i: int, nbytes: int, bar_cta: int) -> None:
        def land() -> None:
            assert not self.exited[dst_cta], "TMA write into an exited CTA"
            assert self.readers[dst_cta][s] == 0, f"TMA overwrote slot {s} of CTA {dst_cta} while wgmmas read it"
            self.slot[dst_cta][s][part] = i
            self.full[bar_cta][s].complete_tx(nbytes)
        self.post(land)

    # --- the kernels' threads, as generators yielding wait predicates ---
    def wait_parity(self, bar: Barrier, parity: int, meant_phase: int):
        yield lambda: bar.parity_done(parity)
        assert bar.completed == meant_phase + 1, (
            f"parity wait meant phase {meant_phase} but the barrier has completed {bar.completed} phases")

    def producer(self, r: int):
        s, phase, first_lap, i = 0, 0, True, 0
        part_bytes = self.B_BYTES // self.cluster
        for _unit in range(self.units):
            for _kt in range(self.ktiles):
                u = i // self.stages
                if not first_lap:
                    yield from self.wait_parity(self.empty[r][s], phase ^ 1, u - 1)
                self.full[r][s].arrive(self.A_BYTES + self.B_BYTES)  # expect_tx(STAGE_BYTES)
                self.tma(r, s, "A", i, self.A_BYTES, r)
                for q in range(self.cluster):  # multicast: same slot and barrier offset in every CTA
                    self.tma(q, s, f"B{r}", i, part_bytes, q)
                i += 1
                s += 1
                if s == self.stages:
                    s, phase, first_lap = 0, phase ^ 1, False
                yield None

    def consumer(self, r: int, w: int):
        s, phase, i = 0, 0, 0
        groups: list[int] = []  # slots of committed, unretired wgmma groups (oldest first)

        def retire() -> None:  # wgmma groups retire in order, each at some random later time
            slot = groups.pop(0)
            self.readers[r][slot] -= 1

        def wait_group(n: int):
            if len(groups) > n:
                yield lambda: len(groups) <= n

        def release(slot: int) -> None:
            for q in range(self.cluster):  # one thread per target CTA; remote arrivals are asynchronous
                bar = self.empty[q][slot]
                if q == r:
                    bar.arrive()
                else:
                    def remote(bar=bar, q=q) -> None:
                        assert not self.exited[q], "arrival on an exited CTA's barrier"
                        bar.arrive()
                    self.post(remote)

        for _unit in range(self.units):
            prev = 0
            for kt in range(self.ktiles):
                yield from self.wait_parity(self.full[r][s], phase, i // self.stages)
                contents = self.slot[r][s]
                expected = {"A": i, **{f"B{q}": i for q in range(self.cluster)}}
                assert contents == expected, f"CTA {r} consumer {w} multiplies {contents}, wanted {expected}"
                self.readers[r][s] += 1
                groups.append(s)  # issue + commit
                self.post(retire)
                yield from wait_group(1)
                if kt > 0:
                    release(prev)
                prev = s
                i += 1
                s += 1
                if s == self.stages:
                    s, phase = 0, phase ^ 1
                yield None
            yield from wait_group(0)
            release(prev)
            yield None  # the epilogue

    def run(self) -> None:
        threads = []
        for r in range(self.cluster):
            threads.append((r, self.producer(r)))
            threads += [(r, self.consumer(r, w)) for w in range(self.consumers)]
        blocked: dict[int, object] = {}
        alive = set(range(len(threads)))
        steps = 0
        while alive or self.events:
            steps += 1
            assert steps < 200_000, "model did not terminate"
            runnable = [t for t in alive if t not in blocked or blocked[t]()]
            choices = [("t", t) for t in runnable] + [("e", k) for k in range(len(self.events))]
            assert choices, "deadlock: every thread waits and nothing is in flight"
            kind, k = self.rng.choice(choices)
            if kind == "e":
                self.events.pop(k)()
                continue
            blocked.pop(k, None)
            try:
                cond = next(threads[k][1])
            except StopIteration:
                alive.discard(k)
                if not alive:  # the final cluster barrier: every thread of the cluster is there
                    # every TMA write is awaited by its CTA's consumers, so only remote arrivals may
                    # still be in flight; the kernels' final cluster barrier orders them before exit
                    assert all(getattr(e, "__name__", "") == "remote" for e in self.events), \
                        "a TMA write is still in flight at exit"
                    while self.events:
                        self.events.pop()()
                    self.exited = [True] * self.cluster
                continue
            if cond is not None:
                blocked[k] = cond


@pytest.mark.parametrize("cluster", [1, 2])
@pytest.mark.parametrize("stages", [2, 3, 4])
@pytest.mark.parametrize("units,ktiles", [(1, 1), (3, 1), (2, 5), (4, 3), (1, 9)])
def test_protocol_under_random_interleavings(cluster, stages, units, ktiles):
    for seed in range(100):
        Model(random.Random(seed * 7919 + stages), cluster, stages, units, ktiles).run()


def test_model_catches_a_wrong_parity():
    """The checker has teeth: a producer that waits for the wrong phase of empty[] is caught."""
    class Broken(Model):
        def wait_parity(self, bar, parity, meant_phase):
            if bar in [b for row in self.empty for b in row]:
                parity ^= 1  # wait for the wrong phase
            yield from Model.wait_parity(self, bar, parity, meant_phase)

    failures = 0
    for seed in range(20):
        try:
            Broken(random.Random(seed), 2, 2, 2, 3).run()
        except AssertionError:
            failures += 1
    assert failures == 20
