#!/usr/bin/env python3
"""Prints the coefficients of nn's single-precision erf (runtime/
erf_f32.cpp), as C++ initialisers of floats. Below 1/2, erf(a) = a * (c0 +
s * Q(s)) with s = a^2, c0 = 2 / sqrt(pi) as a sum of two floats (hi, lo)
and Q of degree 4; from 1/2 to 4, in the interval [j/4, (j + 1)/4) (j = 2
.. 15), erf(a) = hi + lo + p1 * t + t^2 * R(t) with t = a - (j/4 + 1/8)
and R of degree 4. Each is a Chebyshev fit
(mpmath.chebyfit); the fits' errors, printed too, stay below 0.01 of a
float's unit in the last place of the result. Run: python3 tools/
erf_coefficients.py (needs python3-mpmath)."""
import mpmath as mp

mp.mp.dps = 50


def f32(v):
    import struct
    return struct.unpack("f", struct.pack("f", float(v)))[0]


def literal(v):
    mantissa, exponent = float.hex(f32(v)).split("p")
    return mantissa.rstrip("0").rstrip(".") + "p" + exponent + "f"


c0 = 2 / mp.sqrt(mp.pi)
hi = f32(c0)
lo = f32(c0 - mp.mpf(hi))
q_of_s = lambda s: ((mp.erf(mp.sqrt(s)) / mp.sqrt(s)) - c0) / s if s > 0 else -c0 / 3
q, q_error = mp.chebyfit(q_of_s, [0, mp.mpf(1) / 4], 5, error=True)
print("// Q, highest power first (fit error %.1e):" % float(q_error))
print("    " + ", ".join(literal(c) for c in q))
print("// c0 = hi + lo:", literal(hi), literal(lo))
rows = [[] for _ in range(8)]  # hi, lo, p1, then R's coefficients, highest power first
errors = []
for j in range(16):
    if j < 2:  # below 1/2: not used
        for r in rows:
            r.append("0.0f")
        continue
    centre = mp.mpf(j) / 4 + mp.mpf(1) / 8
    c, e = mp.chebyfit(lambda t: mp.erf(centre + t), [-mp.mpf(1) / 8, mp.mpf(1) / 8], 7, error=True)
    errors.append(float(e))
    constant = c[-1]
    h = f32(constant)
    rows[0].append(literal(h))
    rows[1].append(literal(constant - mp.mpf(h)))
    rows[2].append(literal(c[5]))
    for k in range(5):
        rows[3 + k].append(literal(c[k]))
print("// interval fits' largest error: %.1e" % max(errors))
for r in rows:
    lines = [", ".join(r[k:k + 6]) for k in range(0, len(r), 6)]
    print("    {" + ",\n     ".join(lines) + "},")
