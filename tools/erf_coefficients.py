#!/usr/bin/env python3
"""Prints the coefficient table of nn's single-precision erf
(runtime/erf_f32.cpp): |x| in [0, 4) is cut into eight intervals of width
1/2; on the first, erf(a) = a * q0(a^2), on interval i > 0, erf(a) =
qi(a - (i/2 + 1/4)); each q is a degree-9 polynomial, its Chebyshev fit
(mpmath.chebyfit) rounded to doubles. Prints each fit's error too: all are
below 2e-12 (1e-15 relative on the first), far below half a float's unit
in the last place, so the doubles the polynomials give round to the
correctly rounded float but where erf lies within 2e-12 of a halfway point.
Run: python3 tools/erf_coefficients.py (needs python3-mpmath)."""
import mpmath as mp

mp.mp.dps = 50
TERMS = 10
fits = []
first = lambda s: mp.erf(mp.sqrt(s)) / mp.sqrt(s) if s > 0 else 2 / mp.sqrt(mp.pi)
fits.append(mp.chebyfit(first, [0, mp.mpf(1) / 4], TERMS, error=True))
for i in range(1, 8):
    centre = mp.mpf(i) / 2 + mp.mpf(1) / 4
    fits.append(mp.chebyfit(lambda t: mp.erf(centre + t), [-mp.mpf(1) / 4, mp.mpf(1) / 4], TERMS, error=True))
# chebyfit gives the highest power first: row k is the coefficient of t^(9-k).
print("// errors of the fits: " + ", ".join("%.1e" % float(e) for _, e in fits))
for k in range(TERMS):
    print("    {" + ", ".join(float.hex(float(c[k])) for c, _ in fits) + "},")
