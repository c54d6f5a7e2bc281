"""Check bwanalyze evt's statistics against SciPy/NumPy reference values.

The references are written independently of the C code: Yule-Walker by
solving the Toeplitz system of each order (not Levinson's recursion), the
grid-aware K-S from the rounded model's CDF at every grid point.

Usage: scipy_ref.py BWANALYZE TMPDIR.  Exit 0 pass, 1 fail, 77 when SciPy
is missing.
"""
import json
import math
import subprocess
import sys

try:
    import numpy as np
    from scipy import linalg, stats
except ImportError:
    sys.exit(77)

bw, tmp = sys.argv[1], sys.argv[2]
fails = 0


def near(what, got, want, tol):
    if not abs(got - want) <= tol:
        fail(f"FAIL {what}: got {got!r}, SciPy {want!r} (tol {tol})")


def fail(msg):
    """Every failure counts: check() records them here, not by return."""
    global fails
    print(msg)
    fails += 1


def runs_ref(x):
    med = np.median(x)
    s = x[x != med] > med
    n1, n2 = int(s.sum()), int((~s).sum())
    runs = 1 + int(np.count_nonzero(s[1:] != s[:-1]))
    n = n1 + n2
    mean = 2.0 * n1 * n2 / n + 1
    var = 2.0 * n1 * n2 * (2.0 * n1 * n2 - n) / (n * n * (n - 1))
    z = (runs - mean) / math.sqrt(var)
    return z, 2 * stats.norm.sf(abs(z))


def lb_ref(x, h):
    y = x - x.mean()
    c0 = np.dot(y, y)
    n = len(x)
    q = n * (n + 2) * sum((np.dot(y[k:], y[:-k]) / c0) ** 2 / (n - k)
                          for k in range(1, h + 1))
    return q, stats.chi2.sf(q, h)


def theta_ref(x, u):
    idx = np.nonzero(x > u)[0]
    t = np.diff(idx).astype(float)
    if t.max() <= 2:
        th = 2 * t.sum() ** 2 / (len(t) * (t * t).sum())
    else:
        th = 2 * (t - 1).sum() ** 2 / (len(t) * ((t - 1) * (t - 2)).sum())
    return min(1.0, th)


def theta_blocks_ref(x, u, r):
    k = len(x) // r
    e = x[: k * r] > u
    big_n, big_k = e.sum(), e.reshape(k, r).any(axis=1).sum()
    return min(1.0, math.log(1 - big_k / k) / (r * math.log(1 - big_n / (k * r))))


def trend_ref(x, k=20):
    m = np.array([x[i * len(x) // k:(i + 1) * len(x) // k].mean()
                  for i in range(k)])
    s = sum(np.sign(m[j] - m[i]) for i in range(k) for j in range(i + 1, k))
    var = k * (k - 1) * (2 * k + 5) / 18.0
    z = (s - np.sign(s)) / math.sqrt(var)
    return z, 2 * stats.norm.sf(abs(z))


def ar_order_ref(x):
    n = len(x)
    y = x - x.mean()
    pmax = int(min(n - 1, math.floor(10 * math.log10(n)), 64))
    g = np.array([np.dot(y[k:], y[:n - k]) / n for k in range(pmax + 1)])
    aic = [n * math.log(g[0])]
    for p in range(1, pmax + 1):
        phi = linalg.solve_toeplitz(g[:p], g[1:p + 1])
        aic.append(n * math.log(g[0] - np.dot(phi, g[1:p + 1])) + 2 * p)
    return int(np.argmin(aic))


def xgram_ref(x, u, h=20):
    e = x > u
    return [np.sum(e[:-k] & e[k:]) / e.sum() for k in range(1, h + 1)]


def grid_ks_ref(mx, loc, scale, h, lo=-np.inf, two=True):
    """K-S of the rounded model over the grid points."""
    cdf = lambda v: stats.gumbel_r.cdf(v, loc, scale)
    v, cnt = np.unique(mx, return_counts=True)
    after = np.cumsum(cnt) / len(mx)
    before = after - cnt / len(mx)
    sel = v >= lo
    d = np.max(np.append(cdf(v - h / 2)[sel] - before[sel], 0.0))
    if two:
        d = max(d, np.max(after[sel] - cdf(v + h / 2)[sel]))
    return d


def check(name, x, b, ps, fmt="%.3f"):
    path = f"{tmp}/{name}.txt"
    np.savetxt(path, x, fmt=fmt)
    x = np.loadtxt(path)
    args = [bw, "evt", path, "--json", "--block", str(b)]
    for p in ps:
        args += ["--p", repr(p)]
    out = subprocess.run(args, capture_output=True, text=True)
    if out.returncode not in (0, 1):
        fail(f"FAIL {name}: exit {out.returncode}: {out.stderr}")
        return
    r = json.loads(out.stdout)
    t = r["tests"]
    n = len(x)
    mx = x[: n // b * b].reshape(-1, b).max(axis=1)
    loc, scale = stats.gumbel_r.fit(mx)
    near(name + " mu", r["mu"], loc, 1e-6 * abs(loc) + 1e-6)
    near(name + " beta", r["beta"], scale, 1e-5 * scale)
    for p in ps:
        want = r["mu"] - r["beta"] * math.log(-b * math.log1p(-p))
        got = r["pwcet_ns"]["%g" % p]
        if r["ok"]:
            near(f"{name} pwcet {p}", got, math.ceil(want), 0.0)
    h = n // 2
    ks = stats.ks_2samp(x[:h], x[h:], method="exact")
    near(name + " ks_halves d", t["ks_halves"]["d"], ks.statistic, 1e-12)
    near(name + " ks_halves p", t["ks_halves"]["p"], ks.pvalue, 0.02)
    h = t["grid_ns"]
    if h == 0:
        gof = stats.kstest(mx, "gumbel_r", args=(r["mu"], r["beta"]))
        near(name + " gof d", t["gumbel_fit"]["d"], gof.statistic, 1e-12)
        near(name + " gof p", t["gumbel_fit"]["p"], gof.pvalue, 0.02)
    else:
        near(name + " grid gof d", t["gumbel_fit"]["d"],
             grid_ks_ref(mx, r["mu"], r["beta"], h), 1e-12)
    top = r["mu"] - r["beta"] * math.log(-math.log(0.75))
    tail = t["gumbel_tail"]
    near(name + " tail d", tail["ks_d"],
         grid_ks_ref(mx, r["mu"], r["beta"], h, top, False), 1e-12)
    nm = len(mx)
    near(name + " tail max p", tail["max_p"],
         1 - stats.gumbel_r.cdf(mx.max(), r["mu"], r["beta"]) ** nm, 1e-9)
    z, p = runs_ref(x)
    near(name + " runs z", t["runs"]["z"], z, 1e-9)
    near(name + " runs p", t["runs"]["p"], p, 1e-12)
    q, p = lb_ref(x, t["ljung_box_lags"])
    near(name + " lb q", t["ljung_box"]["q"], q, 1e-9 * q)
    near(name + " lb p", t["ljung_box"]["p"], p, 1e-12)
    u = np.quantile(x, 0.95)
    ei = t["extremal_index"]
    near(name + " threshold", ei["threshold"], u, 1e-9)
    near(name + " theta intervals", ei["intervals"], theta_ref(x, u), 1e-12)
    near(name + " theta blocks", ei["blocks"], theta_blocks_ref(x, u, b),
         1e-12)
    z, p = trend_ref(x)
    near(name + " trend z", t["trend"]["z"], z, 1e-9)
    near(name + " trend p", t["trend"]["p"], p, 1e-12)
    want = ar_order_ref(x)
    if t["ar_order"] != want:
        fail(f"FAIL {name} ar_order: got {t['ar_order']}, want {want}")
    u = np.quantile(x, 0.99)
    xg = t["extremogram"]
    near(name + " xgram threshold", xg["threshold"], u, 1e-9)
    for k, (got, want) in enumerate(zip(xg["lags"], xgram_ref(x, u)), 1):
        near(f"{name} extremogram lag {k}", got, want, 1e-12)


rng = np.random.default_rng(20240607)
check("gumbel", rng.gumbel(8000.0, 40.0, 5000), 25, [1e-3])
check("normal", rng.normal(3000.0, 25.0, 3000), 30, [])
e = rng.normal(0.0, 10.0, 4000)
ar = np.empty_like(e)
ar[0] = e[0]
for i in range(1, len(e)):
    ar[i] = 0.08 * ar[i - 1] + e[i]
check("weak_ar1", 4000.0 + ar, 25, [])
check("ar1", 4000.0 + np.convolve(e, np.ones(5), "same"), 25, [])
# whole ns: ties, so the fit is compared on the grid
check("normal_ns", np.round(rng.normal(1600.0, 35.0, 20000)), 25, [],
      fmt="%.0f")
sys.exit(1 if fails else 0)
