"""passfuzz.portable.timing on synthetic timings: a clearly slower side fires, equal sides with noise (and
bursts that slow the machine for a while) do not, and the interval is the sign test's."""

import math
import time

import numpy as np
import pytest

from passfuzz.portable.timing import compare_speed, order_rank, ratio_interval, speed_line


class Machine:
    """A simulated clock and two workloads: each call advances the clock by its cost times
    log-normal noise, and now and then a burst (a neighbour's job) slows every call for a while."""

    def __init__(self, seed: int, noise: float = 0.3, burst_rate: float = 0.05, burst_factor: float = 4.0):
        self.now, self.rng = 0.0, np.random.default_rng(seed)
        self.noise, self.burst_rate, self.burst_factor = noise, burst_rate, burst_factor
        self.burst_left = 0.0

    def clock(self) -> float:
        return self.now

    def workload(self, seconds: float):
        def call():
            if self.burst_left <= 0 and self.rng.random() < self.burst_rate / 100:
                self.burst_left = self.rng.uniform(0.001, 0.02)  # a burst of 1 to 20 ms
            cost = seconds * self.rng.lognormal(0.0, self.noise)
            if self.burst_left > 0:
                cost *= self.burst_factor
                self.burst_left -= cost
            self.now += cost
        return call


def test_order_rank_is_the_sign_tests():
    for n in range(1, 80):
        k = order_rank(n, 0.01)
        below = lambda m: sum(math.comb(n, j) for j in range(m)) / 2 ** n  # P(B <= m - 1)
        assert (k == 0 or below(k) <= 0.01) and below(k + 1) > 0.01
    assert order_rank(6, 0.01) == 0 and order_rank(7, 0.01) == 1  # 1/128 < 0.01 < 1/64


def test_ratio_interval_of_exact_ratios_is_that_ratio():
    original = np.linspace(1e-5, 2e-5, 12)
    ratio, low, high = ratio_interval(original, 3 * original)
    assert ratio == pytest.approx(3) and low == pytest.approx(3) and high == pytest.approx(3)


def test_too_few_pairs_give_no_interval():
    ratio, low, high = ratio_interval([1.0] * 5, [4.0] * 5)
    assert ratio == pytest.approx(4) and (low, high) == (0.0, float("inf"))


def test_one_wild_pair_moves_the_lower_bound_by_one_order_statistic_at_most():
    rng = np.random.default_rng(0)
    original = rng.lognormal(0, 0.1, 20)
    optimized = 2 * original * rng.lognormal(0, 0.1, 20)
    low = ratio_interval(original, optimized)[1]
    optimized[3] = optimized[3] / 100  # the machine paused during one original sample
    wild = ratio_interval(original, optimized)[1]
    ratios = np.sort(optimized / original)
    assert wild >= ratios[order_rank(20, 0.01) - 2] and low > 1.5 and wild > 1.5


@pytest.mark.parametrize("seed", range(20))
def test_clearly_slower_fires(seed):
    machine = Machine(seed)
    timed = compare_speed(machine.workload(2e-5), machine.workload(6e-5), 1.5, clock=machine.clock)
    assert timed["slower"] and timed["low"] > 1.5 and timed["ratio"] == pytest.approx(3, rel=0.3)
    assert timed["pairs"] < 20  # decided early, not at the cap


def test_equal_sides_with_noise_and_bursts_never_fire():
    fired, pairs = 0, []
    for seed in range(300):
        machine = Machine(seed, noise=0.5, burst_rate=0.3, burst_factor=5.0)
        timed = compare_speed(machine.workload(2e-5), machine.workload(2e-5), 1.5, clock=machine.clock)
        fired += timed["slower"]
        pairs.append(timed["pairs"])
    assert fired == 0
    assert np.median(pairs) < 60  # mostly decided before the cap


def test_slower_but_below_the_threshold_does_not_fire():
    fired = sum(compare_speed((m := Machine(seed)).workload(2e-5), m.workload(2.4e-5), 1.5, clock=m.clock)["slower"]
                for seed in range(50))
    assert fired == 0


def test_sampling_stops_at_the_time_cap_undecided():
    machine = Machine(0, noise=1.0)  # so noisy the interval never excludes the threshold quickly
    timed = compare_speed(machine.workload(1e-3), machine.workload(1.5e-3), 1.5, max_seconds=0.1,
                          clock=machine.clock)
    assert not timed["slower"] and timed["pairs"] < 60
    assert machine.now < 0.1 + 0.1  # the cap, and the pair that crossed it


def test_a_module_slower_than_the_time_cap_is_left_undecided():
    machine = Machine(0)
    timed = compare_speed(machine.workload(0.5), machine.workload(2.0), 1.5, max_seconds=3.0, clock=machine.clock)
    assert not timed["slower"] and timed["pairs"] < 8 and (timed["low"], timed["high"]) == (0.0, float("inf"))


def test_real_clock_busy_waits():
    def busy(seconds):
        def call():
            end = time.perf_counter() + seconds
            while time.perf_counter() < end:
                pass
        return call

    slow = compare_speed(busy(1e-4), busy(4e-4), 1.5)
    same = compare_speed(busy(1e-4), busy(1e-4), 1.5)
    assert slow["slower"] and not same["slower"]
    line = speed_line(slow)  # on a busy machine a busy wait lasts longer than asked, both sides alike
    assert f"ratio {slow['ratio']:.3g}x" in line and "threshold 1.5x" in line
