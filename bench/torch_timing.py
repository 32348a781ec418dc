"""The timing loop the PyTorch benchmark scripts share: f run once to warm
up, then `rounds` rounds of `per` calls, the best mean seconds per call."""
import time


def best_seconds(f, rounds, per):
    f()
    best = 1e9
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(per):
            f()
        best = min(best, (time.perf_counter() - t0) / per)
    return best
