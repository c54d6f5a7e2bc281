#!/usr/bin/env python3
"""One end event per launch (doc/protocol.md section 6), checked from
the outside with thirdparty.py's client.

endclient.py SOCKET: a subscriber watches the kernel events while a task
makes four launches:
  1. slot claimed, launch runs for several periods, slot released, then
     kernel.end: one end event, the engine's record, launch = kernel.start's;
  2. the same with kernel.end sent before the slot is released;
  3. a slot never written: kernel.end's event, after the grace;
  4. no slot: kernel.end's event at once.
Then kernel.end again for each: no event.  Exit 0 when all hold."""
import os
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from thirdparty import Client, check, sealed, unpack  # noqa: E402

MAX_BLOCKS, NSLOTS = 1000, 4
SLOT = (64 + 8 * ((MAX_BLOCKS + 63) // 64) + 63) & ~63


def mono_ns():
    return time.clock_gettime_ns(time.CLOCK_MONOTONIC)


class Page:
    """The progress page, written the way bwshm.h says (seqlock)."""

    def __init__(self):
        self.fd = sealed(64 + NSLOTS * SLOT,
                         struct.pack("=IIIII", 0x50505742, 1, NSLOTS, SLOT,
                                     MAX_BLOCKS))
        self.seq = [0] * NSLOTS

    def _bump(self, slot):
        self.seq[slot] += 1
        os.pwrite(self.fd, struct.pack("=Q", self.seq[slot]),
                  64 + slot * SLOT)

    def claim(self, slot, kernel, stream):
        base = 64 + slot * SLOT
        self._bump(slot)
        now = mono_ns()
        os.pwrite(self.fd, struct.pack("=IIQQI", 1, kernel, stream, now,
                                       MAX_BLOCKS), base + 8)
        os.pwrite(self.fd, bytes(SLOT - 64), base + 64)
        self._bump(slot)
        return now

    def release(self, slot, launch_ns):
        base = 64 + slot * SLOT
        self._bump(slot)
        os.pwrite(self.fd, struct.pack("=I", 0), base + 8)
        os.pwrite(self.fd, struct.pack("=QQ", mono_ns(), launch_ns),
                  base + 40)
        self._bump(slot)


class Watcher(Client):
    def __init__(self, path):
        super().__init__(path)
        r = self.call("hello", pid=os.getpid(), name="watch")
        check(r["status"] == 0, "watcher hello: %r" % r)
        r = self.call("subscribe", topics=["kernel"])
        check(r["status"] == 0, "subscribe: %r" % r)
        self.s.settimeout(0.05)
        self.ends = []

    def drain(self, seconds):
        until = time.monotonic() + seconds
        while time.monotonic() < until:
            try:
                m, _ = unpack(self.s.recv(65536))
            except (TimeoutError, OSError):
                continue
            if m.get("ev") == "kernel" and m.get("what") == "end":
                self.ends.append(m)

    def of(self, launch):
        return [m for m in self.ends if m["launch"] == launch]


def main():
    w = Watcher(sys.argv[1])
    c = Client(sys.argv[1])
    r = c.call("hello", pid=os.getpid(), name="ends")
    check(r["status"] == 0, "hello: %r" % r)
    period_ms = r["period_ns"] / 1e6
    task = sealed(4096, struct.pack("=II", 0x50545742, 1))
    pg = Page()
    r = c.call("task.register", fds=(task, pg.fd), name="ends",
               period_ns=10**8, priority=20, pages=3)
    check(r["status"] == 0, "task.register: %r" % r)
    r = c.call("kernel.register", name="k", blocks=MAX_BLOCKS,
               concurrency=100, clusters=[[20000, 60000]],
               intervals=[[0, 0]])
    check(r["status"] == 0, "kernel.register: %r" % r)
    k = r["kernel"]
    run = max(0.1, 30 * period_ms / 1e3)   # many engine periods
    grace = max(0.5, 64 * period_ms / 1e3)  # twice the daemon's wait

    # 1: released, then kernel.end
    t0 = pg.claim(0, k, 7)
    n1 = c.call("kernel.start", kernel=k, stream=7, slot=0)["launch"]
    time.sleep(run)
    pg.release(0, t0)
    w.drain(run)
    check(c.call("kernel.end", kernel=k, launch=n1)["status"] == 0, "end 1")
    # 2: kernel.end, then released
    t0 = pg.claim(1, k, 7)
    n2 = c.call("kernel.start", kernel=k, stream=7, slot=1)["launch"]
    time.sleep(run)
    check(c.call("kernel.end", kernel=k, launch=n2)["status"] == 0, "end 2")
    pg.release(1, t0)
    # 3: a slot never written
    n3 = c.call("kernel.start", kernel=k, stream=7, slot=2)["launch"]
    check(c.call("kernel.end", kernel=k, launch=n3)["status"] == 0, "end 3")
    # 4: no slot
    n4 = c.call("kernel.start", kernel=k, stream=8)["launch"]
    check(c.call("kernel.end", kernel=k, launch=n4)["status"] == 0, "end 4")
    check([n1, n2, n3, n4] == list(range(n1, n1 + 4)),
          "launch numbers: %r" % [n1, n2, n3, n4])
    w.drain(grace)
    # asking again sends nothing more
    for n in (n1, n2, n3):
        c.call("kernel.end", kernel=k, launch=n)
    w.drain(grace)

    for n, rec in ((n1, True), (n2, True), (n3, False), (n4, False)):
        got = w.of(n)
        check(len(got) == 1, "launch %d: %d end events: %r" % (n, len(got),
                                                              got))
        check(("bound_met" in got[0]) == rec and
              (not rec or got[0]["end_by"] in ("client", "daemon")),
              "launch %d: record %s expected: %r" % (n, rec, got[0]))
    check(all(m["launch"] in (n1, n2, n3, n4) for m in w.ends),
          "end events of other launches: %r" % w.ends)
    print("end events: one per launch for %d..%d" % (n1, n4))


if __name__ == "__main__":
    main()
