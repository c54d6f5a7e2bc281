#!/usr/bin/env python3
"""GPU admission through the real daemon (doc/partition.md): the worked
example of doc/partition.md arriving one task at a time on a 4-SM GPU,
scaled to 100 us periods.

admit_client.py SOCKET PLANFILE MODE
  MODE plan:    placements, a re-partition, a refusal that leaves the
                plan as it was, removal, granted sizes, the plan page.
  MODE device:  no gpu_sms configured: refused until a client reports
                the device, then planned on it; conflicting reports.
Exit 0 when every reply is as documented."""
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from thirdparty import Client, check  # noqa: E402

T = 100000              # period and deadline, ns
UNSCHED, BADARG, STATE, NOENT = 15, 5, 12, 8


def client(sock, name):
    c = Client(sock)
    r = c.call("hello", pid=os.getpid(), name=name)
    check(r["status"] == 0 and r.get("partitioning") is True,
          "hello says partitioning: %r" % r)
    return c


def register(sock, name, a, cls, **more):
    c = client(sock, name)
    gpu = dict(a_ns=a, **{"class": cls})
    gpu.update(more)
    r = c.call("task.register", name=name, period_ns=T, priority=10,
               pages=0, gpu=gpu)
    return c, r


def plan(c):
    r = c.call("partitions")
    check(r["status"] == 0, "partitions: %r" % r)
    return r


def parts(r):
    """{frozenset of task names: (sm_first, sms)}"""
    return {frozenset(t["name"] for t in p["tasks"]):
            (p["sm_first"], p["sms"]) for p in r["partitions"]}


def page(path):
    """The plan page: (gen, sms_total, granule, ok, entries)."""
    with open(path, "rb") as f:
        b = f.read()
    magic, version, seq, gen, m, g, n, ok = struct.unpack_from("=IIQQIIII",
                                                               b, 0)
    check(magic == 0x50475742 and version == 1 and seq % 2 == 0,
          "page header %x %d %d" % (magic, version, seq))
    ents = [struct.unpack_from("=IiIIII", b, 40 + 24 * i) for i in range(n)]
    return gen, m, g, ok, ents


def mode_plan(sock, pagefile):
    a, r = register(sock, "A", 100000, "ci")
    check(r["status"] == 0 and r["partition"]["sms"] == 2 and
          r["partition"]["sm_first"] == 0, "A alone on 2 SMs: %r" % r)
    b, r = register(sock, "B", 100000, "mi")
    check(r["status"] == 0 and r["partition"]["sm_first"] == 2,
          "B on SMs 2-3: %r" % r)
    c, r = register(sock, "C", 50000, "ci")
    check(r["status"] == 0 and r["partition"]["sm_first"] == 0,
          "C joins A (conflict, 62400 + 31200 ns on 2 SMs): %r" % r)
    p = parts(plan(a))
    check(p == {frozenset("AC"): (0, 2), frozenset("B"): (2, 2)},
          "plan AC, B: %r" % p)
    gen_before = plan(a)["plan"]
    # D fits nowhere as things are: Algorithm 1 (SMS fails, BF finds AD, BC)
    d, r = register(sock, "D", 50000, "mi")
    check(r["status"] == 0 and r["partition"]["sms"] == 2,
          "D admitted by partitioning again: %r" % r)
    r = plan(a)
    p = parts(r)
    check(set(p) == {frozenset("AD"), frozenset("BC")} and
          r["sms_used"] == 4 and r["schedulable"] and
          r["plan"] == gen_before + 1, "plan AD, BC: %r" % r)
    # the per-demand view: C conflicts with nobody next to B
    for part in r["partitions"]:
        for t in part["tasks"]:
            dm = t["demands"][0]
            check(dm["kernel"] == "" and dm["period_ns"] == T and
                  dm["deadline_ns"] == T and dm["conflict"] is False and
                  dm["sms"] == 2, "demand %r" % dm)
    gen, m, g, ok, ents = page(pagefile)
    check(gen == r["plan"] and m == 4 and g == 1 and ok == 1 and
          len(ents) == 4 and all(e[1] == os.getpid() for e in ents),
          "plan page %r" % ((gen, m, g, ok, ents),))
    # no room for E: refused with the reason, nothing changes
    e, r = register(sock, "E", 70000, "ci")
    check(r["status"] == UNSCHED and "no room for E" in r["error"] and
          "Algorithm 1 failed" in r["error"], "E refused: %r" % r)
    # the same demand again: the same answer (from the memo)
    r2 = e.call("task.register", name="E", period_ns=T, priority=10,
                pages=0, gpu={"a_ns": 70000, "class": "ci"})
    check(r2["status"] == UNSCHED and r2["error"] == r["error"],
          "E refused again: %r" % r2)
    r2 = plan(a)
    check(parts(r2) == p and r2["plan"] == gen_before + 1,
          "plan untouched after the refusal: %r" % r2)
    check(page(pagefile)[0] == gen, "page untouched")
    # a refused task is not registered: it may try again
    r = e.call("task.register", name="E", period_ns=T, priority=10,
               pages=0)
    check(r["status"] == 0 and "partition" not in r,
          "E without a GPU demand: %r" % r)
    # Lemma 1 (sum C^n(1)/T = 3.18 + 5.1 > 4) and a task too big
    _, r = register(sock, "F", 510000, "ci")
    check(r["status"] == UNSCHED and "Lemma 1" in r["error"],
          "Lemma 1: %r" % r)
    _, r = register(sock, "G", 1000, "mi", b_ns=600, deadline_ns=500)
    check(r["status"] == UNSCHED and "misses its deadline even alone" in
          r["error"], "too big: %r" % r)
    # bad demands
    for gpu, what in ((dict(a_ns=0, **{"class": "ci"}), "a_ns"),
                      (dict(a_ns=5, **{"class": "xx"}), "class"),
                      (dict(a_ns=5), "class"),
                      (dict(a_ns=5, k=0.5, **{"class": "mi"}), "k"),
                      (dict(a_ns=5, deadline_ns=T + 1, **{"class": "mi"}),
                       "deadline_ns")):
        x = client(sock, "bad")
        r = x.call("task.register", name="bad", period_ns=T, priority=10,
                   pages=0, gpu=gpu)
        check(r["status"] == BADARG and what in r["error"],
              "bad %s: %r" % (what, r))
    x = client(sock, "bad")
    r = x.call("task.register", name="bad", period_ns=T, priority=10,
               pages=0, gpu=[1, 2])
    check(r["status"] == BADARG and "must be a map" in r["error"],
          "gpu not a map: %r" % r)
    # granted sizes: the driver gave A's partition 2, then only 1
    r = a.call("gpu.granted", sms=2)
    check(r["status"] == 0 and r["schedulable"] is True, "granted 2: %r" % r)
    r = a.call("gpu.granted", sms=1)
    check(r["status"] == 0 and r["schedulable"] is False and
          "granted" in r["reason"], "granted 1: %r" % r)
    check(page(pagefile)[3] == 0, "page says not schedulable")
    r = a.call("gpu.granted", sms=2)
    check(r["schedulable"] is True, "granted 2 again: %r" % r)
    r = e.call("gpu.granted", sms=2)
    check(r["status"] == NOENT, "granted without a partition: %r" % r)
    # a kernel's demand adds to its task's partition
    r = a.call("kernel.register", name="k", blocks=100, concurrency=10,
               clusters=[[1000, 2000]], intervals=[[0, 0]],
               gpu={"a_ns": 1000, "class": "ci", "period_ns": 2 * T})
    check(r["status"] == 0 and r["partition"]["sm_first"] ==
          [pp for pp in plan(a)["partitions"]
           if "A" in [t["name"] for t in pp["tasks"]]][0]["sm_first"],
          "kernel demand placed with its task: %r" % r)
    r = plan(a)
    at = [t for pp in r["partitions"] for t in pp["tasks"]
          if t["name"] == "A"][0]
    check(len(at["demands"]) == 2 and at["demands"][1]["kernel"] == "k" and
          at["demands"][1]["period_ns"] == 2 * T, "two demands: %r" % at)
    # D leaves: its partition keeps A on the same SMs
    first = [pp["sm_first"] for pp in r["partitions"]
             if "A" in [t["name"] for t in pp["tasks"]]][0]
    d.s.close()
    r = plan(a)
    for _ in range(100):
        if "D" not in [t["name"] for pp in r["partitions"]
                       for t in pp["tasks"]]:
            break
        r = plan(a)
    p = parts(r)
    check(p.get(frozenset("A")) == (first, 2), "A stays: %r" % p)
    print("admission: all passed")


def mode_device(sock, pagefile):
    a, r = register(sock, "A", 100000, "ci")
    check(r["status"] == STATE and "SM count is unknown" in r["error"],
          "no SM count: %r" % r)
    r = a.call("gpu.device", sms=8, granule=2)
    check(r["status"] == 0 and r["sms_total"] == 8 and r["granule"] == 2 and
          r["source"] == "device", "device: %r" % r)
    r = a.call("task.register", name="A", period_ns=T, priority=10, pages=0,
               gpu={"a_ns": 100000, "class": "ci"})
    check(r["status"] == 0 and r["partition"]["sms"] == 2, "A: %r" % r)
    c, r = register(sock, "C", 50000, "ci")
    check(r["status"] == 0 and r["partition"]["sms"] == 2,
          "granule 2: C joins A on 2: %r" % r)
    r = c.call("gpu.device", sms=8, granule=2)
    check(r["status"] == 0, "the same report again: %r" % r)
    r = c.call("gpu.device", sms=16, granule=2)
    check(r["status"] == STATE, "a different device: %r" % r)
    r = c.call("gpu.device", sms=2, granule=4)
    check(r["status"] == BADARG, "granule above sms: %r" % r)
    gen, m, g, ok, ents = page(pagefile)
    check(m == 8 and g == 2 and len(ents) == 2, "page: %r" % (ents,))
    print("device: all passed")


{"plan": mode_plan, "device": mode_device}[sys.argv[3]](sys.argv[1],
                                                       sys.argv[2])
