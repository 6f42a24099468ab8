"""A model of split-K's owned-rows reduction (kernels/include/split_k.cuh: split_k_owned) under random
interleavings and partial residency: launches of one wave sharing a pool of SMs, each launch's CTAs placed in
grid order as SMs free up.

Each unit is one k range r of a tile; consumer warpgroup w of range w owns rows w and waits until the other
ranges have handed their partials of those rows over (a count on the rows' counter), then adds them in range
order and resets the counter; every other warpgroup hands its partial over and is done, waiting for nothing.
Checked: the launches finish (no CTA waits for ever) whenever the pool holds 2 x SPLITS - 1 CTAs (a launch holding
SPLITS or more CTAs in grid order always has a whole tile among them, or only partners already gone), each tile's
rows get every range's partial exactly once in the order the kernel adds them, and every counter is back at zero
for the next launch. Also shown: the protocol can hang when CTAs are placed out of grid order, and an owner's
partners must sit beside it in grid order, which is why the kernel takes it in single-wave launches only
(hopper_sched.cuh: split_k_complete)."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

import pytest


@dataclass
class Launch:
    tiles: int
    splits: int
    consumers: int
    order: list[int]  # the order its CTAs are placed in (grid order: 0, 1, 2, ...)
    count: dict = field(default_factory=dict)
    slices: set = field(default_factory=set)
    sums: dict = field(default_factory=dict)
    state: dict = field(default_factory=dict)
    steps: dict = field(default_factory=dict)

    def place(self, c: int, rng: random.Random) -> None:
        r = c % self.splits  # unit c: tile c // splits, k range c % splits
        self.state[c] = ["hand" if r != w else "wait" for w in range(self.consumers)]
        self.steps[c] = rng.randint(1, 4)  # the main loop, shared by the CTA's consumers

    def step(self, c: int) -> bool:
        """One step of CTA c; True if it did something."""
        t, r = divmod(c, self.splits)
        if self.steps[c] > 0:
            self.steps[c] -= 1
            return True
        did = False
        for w in range(self.consumers):
            key = (t, w)
            if self.state[c][w] == "hand":
                self.slices.add((t, r, w))  # this range's partial of rows w, then red.release on the count
                self.count[key] = self.count.get(key, 0) + 1
                self.state[c][w] = "done"
                did = True
            elif self.state[c][w] == "wait" and self.count.get(key, 0) == self.splits - 1:  # ld.acquire
                assert all((t, s, w) in self.slices for s in range(self.splits) if s != r)
                self.sums[key] = (r, *[s for s in range(self.splits) if s != r])  # own, then the others in order
                self.count[key] = 0
                self.state[c][w] = "done"
                did = True
        return did

    def done(self, c: int) -> bool:
        return self.steps[c] == 0 and all(s == "done" for s in self.state[c])

    def check(self) -> None:
        assert all(v == 0 for v in self.count.values())
        assert set(self.sums) == {(t, w) for t in range(self.tiles) for w in range(self.consumers)}
        for (_, w), added in self.sums.items():
            assert sorted(added) == list(range(self.splits)) and added[0] == w


def run(launches: list[Launch], pool: int, seed: int) -> bool:
    """Run the launches on `pool` SMs (a CTA each), the next CTA of a random launch placed when one frees.
    Returns False if every placed CTA waits for ever with CTAs still to place or waiting."""
    rng = random.Random(seed)
    queues = [list(launch.order) for launch in launches]
    placed: list[tuple[int, int]] = []
    while any(queues) or placed:
        while len(placed) < pool and any(queues):
            i = rng.choice([j for j, q in enumerate(queues) if q])
            c = queues[i].pop(0)
            launches[i].place(c, rng)
            placed.append((i, c))
        progress = False
        for i, c in rng.sample(placed, len(placed)):
            progress |= launches[i].step(c)
            if launches[i].done(c):
                placed.remove((i, c))
                progress = True
        if not progress:
            return False
    for launch in launches:
        launch.check()
    return True


def _launch(tiles: int, splits: int, consumers: int, order: list[int] | None = None) -> Launch:
    return Launch(tiles, splits, consumers, list(range(tiles * splits)) if order is None else order)


@pytest.mark.parametrize(("splits", "consumers"), [(2, 2), (3, 2), (4, 2), (2, 1), (4, 1)])
def test_one_wave_placed_in_grid_order_always_finishes(splits, consumers):
    for seed in range(30):
        for pool in (splits, 2 * splits - 1, 2 * splits + 1, 64):
            assert run([_launch(12, splits, consumers)], pool, seed)  # alone, beside kernels holding the rest
            assert run([_launch(12, splits, consumers), _launch(9, splits, consumers)], max(pool, 2 * splits - 1), seed)


def test_placed_out_of_grid_order_it_can_hang():
    """Two SMs for four CTAs, the first range of each of two tiles placed first: both owners wait for ranges that
    cannot be placed until one of them leaves."""
    assert not run([_launch(2, 2, 2, order=[0, 2, 1, 3])], pool=2, seed=0)


def test_two_launches_on_too_few_sms_can_hang():
    """With fewer than 2 x SPLITS - 1 SMs two launches can each hold part of a tile and wait for the rest."""
    hung = [not run([_launch(4, 2, 2), _launch(4, 2, 2)], pool=2, seed=seed) for seed in range(40)]
    assert any(hung)
