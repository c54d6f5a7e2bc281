"""Check bwanalyze evt's statistics against SciPy reference values.

Usage: scipy_ref.py BWANALYZE TMPDIR.  Exit 0 pass, 1 fail, 77 when SciPy
is missing.
"""
import json
import math
import subprocess
import sys

try:
    import numpy as np
    from scipy import stats
except ImportError:
    sys.exit(77)

bw, tmp = sys.argv[1], sys.argv[2]
fails = 0


def near(what, got, want, tol):
    global fails
    if not abs(got - want) <= tol:
        print(f"FAIL {what}: got {got!r}, SciPy {want!r} (tol {tol})")
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


def check(name, x, b, ps):
    path = f"{tmp}/{name}.txt"
    np.savetxt(path, x, fmt="%.3f")
    x = np.loadtxt(path)
    args = [bw, "evt", path, "--json", "--block", str(b)]
    for p in ps:
        args += ["--p", repr(p)]
    out = subprocess.run(args, capture_output=True, text=True)
    if out.returncode not in (0, 1):
        print(f"FAIL {name}: exit {out.returncode}: {out.stderr}")
        return 1
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
    gof = stats.kstest(mx, "gumbel_r", args=(r["mu"], r["beta"]))
    near(name + " gof d", t["gumbel_fit"]["d"], gof.statistic, 1e-12)
    near(name + " gof p", t["gumbel_fit"]["p"], gof.pvalue, 0.02)
    z, p = runs_ref(x)
    near(name + " runs z", t["runs"]["z"], z, 1e-9)
    near(name + " runs p", t["runs"]["p"], p, 1e-12)
    q, p = lb_ref(x, t["ljung_box_lags"])
    near(name + " lb q", t["ljung_box"]["q"], q, 1e-9 * q)
    near(name + " lb p", t["ljung_box"]["p"], p, 1e-12)
    u = np.quantile(x, 0.95)
    near(name + " threshold", t["extremal_index"]["threshold"], u, 1e-9)
    near(name + " theta", t["extremal_index"]["theta"], theta_ref(x, u),
         1e-12)
    return 0


rng = np.random.default_rng(20240607)
fails += check("gumbel", rng.gumbel(8000.0, 40.0, 5000), 25, [1e-3])
fails += check("normal", rng.normal(3000.0, 25.0, 3000), 30, [])
e = rng.normal(0.0, 10.0, 4000)
ar = np.empty_like(e)
ar[0] = e[0]
for i in range(1, len(e)):
    ar[i] = 0.08 * ar[i - 1] + e[i]
fails += check("weak_ar1", 4000.0 + ar, 25, [])
fails += check("ar1", 4000.0 + np.convolve(e, np.ones(5), "same"), 25, [])
sys.exit(1 if fails else 0)
