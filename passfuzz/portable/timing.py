"""Is one callable slower than another by more than a factor? Paired, interleaved timings and a
distribution-free confidence interval on their ratio (numpy and the standard library only).

``reproducer.py`` copies this module's source into every slowdown reproducer, so a script times
and judges exactly as the run that found the slowdown did.

Why these choices. The machines passfuzz runs on are shared and noisy: a neighbour's burst, a
descheduled process or a cold cache slows whatever runs at that moment, by as much as a planted
slowdown. So:

- the two sides run interleaved in pairs, in alternating order (A B, then B A), so that what
  slows the machine for a while slows both sides of a pair alike and neither always runs first;
- one sample is a batch of calls lasting at least ``sample_seconds`` (``perf_counter`` around
  the batch), after a warm-up, since one call of a small module lasts microseconds;
- the quantity judged is the median of the paired log ratios log(optimized / original), with
  the sign test's interval for a median: the k-th smallest and k-th largest of n values, k the
  largest with P(Binomial(n, 1/2) < k) <= alpha. It holds for any distribution of the noise,
  and one wild sample moves it by one order statistic at most, where it would widen a t
  interval around a mean it had also moved;
- sampling stops as soon as the interval lies wholly above or wholly below the threshold, when
  so many pairs are at or below the threshold that no further pairs could lift the lower end
  above it, or at ``max_pairs`` or ``max_seconds``; a slowdown is reported only when the
  interval's lower end is above the threshold. The looks after each pair make the error rate somewhat larger than
  ``alpha``, which is why ``alpha`` is small (1% per side).
"""

import math
import time

import numpy as np

THRESHOLD = 1.5  # the default: optimized / original beyond which a module is slower
ALPHA = 0.01  # one-sided: the chance that the true median ratio lies below the interval's lower end
MIN_PAIRS = 8  # the fewest pairs judged: with 7 the interval is at best the range itself
MAX_PAIRS = 60
MAX_SECONDS = 2.0  # per comparison (one target of one example); sampling stops there, undecided
SAMPLE_SECONDS = 0.002  # one sample: a batch of calls lasting at least this long


def order_rank(n, alpha):
    """The largest k >= 1 with P(Binomial(n, 1/2) <= k - 1) <= alpha, or 0 when there is none
    (too few pairs for any interval at that level)."""
    k, below = 0, 0.0
    while k < n:
        below += math.comb(n, k) / 2.0 ** n  # P(B <= k)
        if below > alpha:
            break
        k += 1
    return k


def ratio_interval(original, optimized, alpha=ALPHA):
    """(ratio, low, high) from paired timings: the median of optimized[i] / original[i] and the
    sign test's interval for it, each side of which holds with probability 1 - alpha.
    (low, high) is (0, inf) when there are too few pairs."""
    logs = np.sort(np.log(np.asarray(optimized, dtype="float64")) - np.log(np.asarray(original, dtype="float64")))
    n = len(logs)
    ratio = float(np.exp(np.median(logs))) if n else float("nan")
    k = order_rank(n, alpha)
    if k == 0:
        return ratio, 0.0, float("inf")
    return ratio, float(np.exp(logs[k - 1])), float(np.exp(logs[n - k]))


def calls_per_sample(functions, sample_seconds, clock=time.perf_counter):
    """How many calls make one sample: doubled until a batch of each function lasts at least
    ``sample_seconds`` (the first batches are the warm-up)."""
    calls = 1
    while True:
        durations = []
        for function in functions:
            start = clock()
            for _ in range(calls):
                function()
            durations.append(clock() - start)
        if min(durations) >= sample_seconds or calls >= 1 << 20:
            return calls
        calls *= 2


def compare_speed(run_original, run_optimized, threshold, alpha=ALPHA, min_pairs=MIN_PAIRS, max_pairs=MAX_PAIRS,
                  max_seconds=MAX_SECONDS, sample_seconds=SAMPLE_SECONDS, clock=time.perf_counter):
    """Time two callables interleaved until their ratio is known (see the module docstring):
    a dict with the medians of one call (seconds), the ratio optimized / original with its
    interval, the pairs taken and the calls per sample, and ``slower``: is the interval's lower
    end above ``threshold``?"""
    started = clock()
    calls = calls_per_sample((run_original, run_optimized), sample_seconds, clock)
    times = ([], [])  # per call, original and optimized
    functions = (run_original, run_optimized)
    ratio, low, high = float("nan"), 0.0, float("inf")
    # Firing needs fewer than order_rank(n) pair ratios at or below the threshold, and that rank
    # only grows with n: once this many are, no number of further pairs can make it fire.
    hopeless = order_rank(max_pairs, alpha)
    while len(times[0]) < max_pairs:
        order = (0, 1) if len(times[0]) % 2 == 0 else (1, 0)
        for side in order:
            start = clock()
            for _ in range(calls):
                functions[side]()
            times[side].append((clock() - start) / calls)
        if len(times[0]) >= min_pairs:
            ratio, low, high = ratio_interval(times[0], times[1], alpha)
            at_most = sum(b <= threshold * a for a, b in zip(*times))
            if low > threshold or high < threshold or at_most >= hopeless:
                break
        if clock() - started > max_seconds:  # undecided (a slow module: perhaps before min_pairs)
            break
    if len(times[0]) < min_pairs:
        ratio, low, high = ratio_interval(times[0], times[1], alpha)[0], 0.0, float("inf")
    return {"original": float(np.median(times[0])), "optimized": float(np.median(times[1])), "ratio": ratio,
            "low": low, "high": high, "pairs": len(times[0]), "calls": calls, "threshold": threshold,
            "confidence": 1 - alpha, "slower": low > threshold}


def speed_line(timing):
    """One line: both medians, the ratio and its interval, against the threshold."""
    def ms(seconds):
        return f"{seconds * 1e3:.3g} ms"

    return (f"optimized {ms(timing['optimized'])}, original {ms(timing['original'])} per call (medians of "
            f"{timing['pairs']} interleaved pairs of {timing['calls']} calls); ratio {timing['ratio']:.3g}x, "
            f"{timing['confidence']:.0%} lower bound {timing['low']:.3g}x, upper {timing['high']:.3g}x "
            f"(threshold {timing['threshold']:g}x)")
