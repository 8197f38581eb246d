#!/usr/bin/env python3
"""Fits the polynomial of the tile library's normal_cdf (include/tessera/tile/cuda/math.h), in plain Python.

For a = |x| and t = 1 / (1 + a / sqrt(8)) (t in (0, 1]), the tail of the standard normal distribution is

    Phi(-a) = 0.5 erfc(a / sqrt(2)) = t * 2^(Q(t) - a^2 log2(e) / 2)

where Q is smooth on [0, 1] (the erfc's asymptotic series is a series in t near t = 0). A polynomial fit of Q
in t gives Phi(-a) to a relative error that is the fit's absolute error times ln 2, for every a, with one
reciprocal and one 2^x. Q is sampled at Chebyshev points of [0, 1], fitted by least squares in the Chebyshev
basis, converted to powers of t and rounded to fp32. The relative error of Phi(-a) is then measured with the
kernel's own fp32 arithmetic (each operation rounded to fp32) over a grid of a in [0, 12].

  python3 scripts/fit_normal_cdf.py [degree]      (default: degrees 4 to 9; prints the coefficients;
                                                   the library uses 7 for normal_cdf and 5 for normal_cdf_coarse)
"""
import math
import struct
import sys

LOG2E = 1.0 / math.log(2.0)


def f32(v):
    return struct.unpack("f", struct.pack("f", v))[0]


def tail(a):
    """Phi(-a), accurate for every a >= 0 (the asymptotic series where erfc underflows)."""
    z = a / math.sqrt(2.0)
    if z < 25.0:
        return 0.5 * math.erfc(z)
    return None


def log2_tail(a):
    z = a / math.sqrt(2.0)
    if z < 25.0:
        return math.log2(0.5 * math.erfc(z))
    s, term = 1.0, 1.0
    for k in range(1, 8):
        term *= -(2 * k - 1) / (2 * z * z)
        s += term
    return (-z * z - math.log(z * math.sqrt(math.pi)) + math.log(s)) * LOG2E - 1.0


def q_of_t(t):
    if t <= 0.0:
        return math.log2(1.0 / (2.0 * math.sqrt(2.0 * math.pi)))  # the limit a -> inf
    a = math.sqrt(8.0) * (1.0 / t - 1.0)
    return log2_tail(a) - math.log2(t) + a * a * LOG2E / 2.0


def solve(m, v):
    n = len(v)
    m = [row[:] + [v[i]] for i, row in enumerate(m)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(m[r][c]))
        m[c], m[p] = m[p], m[c]
        for r in range(n):
            if r != c:
                f = m[r][c] / m[c][c]
                for k in range(c, n + 1):
                    m[r][k] -= f * m[c][k]
    return [m[i][n] / m[i][i] for i in range(n)]


def fit(degree, samples=400):
    ts = [0.5 - 0.5 * math.cos(math.pi * (i + 0.5) / samples) for i in range(samples)]
    ys = [q_of_t(t) for t in ts]
    # Least squares in the Chebyshev basis of [0, 1] (well conditioned), then to powers of t.
    def cheb(t):
        u = 2.0 * t - 1.0
        out = [1.0, u]
        while len(out) < degree + 1:
            out.append(2.0 * u * out[-1] - out[-2])
        return out[: degree + 1]

    rows = [cheb(t) for t in ts]
    ata = [[sum(r[i] * r[j] for r in rows) for j in range(degree + 1)] for i in range(degree + 1)]
    aty = [sum(r[i] * y for r, y in zip(rows, ys)) for i in range(degree + 1)]
    c = solve(ata, aty)
    # T_k(2t - 1) as polynomials in t.
    polys = [[1.0], [-1.0, 2.0]]
    while len(polys) < degree + 1:
        a, b = polys[-1], polys[-2]
        nxt = [0.0] * (len(a) + 1)
        for i, v in enumerate(a):
            nxt[i + 1] += 4.0 * v
            nxt[i] -= 2.0 * v
        for i, v in enumerate(b):
            nxt[i] -= v
        polys.append(nxt)
    power = [0.0] * (degree + 1)
    for k in range(degree + 1):
        for i, v in enumerate(polys[k]):
            power[i] += c[k] * v
    return [f32(v) for v in power]


def kernel_tail(a, coeffs):
    """Phi(-a) as the CUDA normal_cdf computes it, every operation rounded to fp32 (2^x and 1/x exact)."""
    a = f32(a)
    t = f32(1.0 / f32(1.0 + f32(a * f32(1.0 / math.sqrt(8.0)))))
    q = coeffs[-1]
    for c in reversed(coeffs[:-1]):
        q = f32(q * t + c)
    e = f32(f32(a * f32(-LOG2E / 2.0)) * a + q)
    return f32(t * f32(2.0 ** e)) if e > -149 else 0.0


def max_error(coeffs):
    worst, at = 0.0, 0.0
    for i in range(1, 12001):
        a = i * 0.001
        ref = tail(a)
        if ref is None or ref < 1.2e-38:  # below fp32's normal range the kernel flushes to zero
            continue
        err = abs(kernel_tail(a, coeffs) - ref) / ref
        if err > worst:
            worst, at = err, a
    return worst, at


def main():
    degrees = [int(sys.argv[1])] if len(sys.argv) > 1 else list(range(4, 10))
    for d in degrees:
        coeffs = fit(d)
        err, at = max_error(coeffs)
        print(f"degree {d}: max relative error of Phi(-a) {err:.2e} (at a = {at:.3f})")
        print("  coefficients, t^0 first: " + ", ".join(f"{c:.9g}f" for c in coeffs))


if __name__ == "__main__":
    main()
