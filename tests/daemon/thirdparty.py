#!/usr/bin/env python3
"""A bwsched client written from doc/protocol.md alone, with only the
Python standard library (its own little msgpack codec): proves the
document is enough for a third party.

thirdparty.py SOCKET: hello, status, task.register with two sealed memfd
pages, kernel.register, kernel.start / stream.sync, get, a bad message.
Exit 0 when every reply is as documented."""
import fcntl
import mmap
import os
import socket
import struct
import sys


def pack(v):
    if v is None:
        return b"\xc0"
    if v is True:
        return b"\xc3"
    if v is False:
        return b"\xc2"
    if isinstance(v, int):
        if 0 <= v < 128:
            return bytes([v])
        if v >= 0:
            return b"\xcf" + struct.pack(">Q", v)
        return b"\xd3" + struct.pack(">q", v)
    if isinstance(v, float):
        return b"\xcb" + struct.pack(">d", v)
    if isinstance(v, str):
        b = v.encode()
        return b"\xdb" + struct.pack(">I", len(b)) + b
    if isinstance(v, (list, tuple)):
        return b"\xdd" + struct.pack(">I", len(v)) + b"".join(map(pack, v))
    if isinstance(v, dict):
        return b"\xdf" + struct.pack(">I", len(v)) + b"".join(
            pack(k) + pack(x) for k, x in v.items())
    raise TypeError(v)


def unpack(b, i=0):
    t = b[i]
    if t < 0x80:
        return t, i + 1
    if t >= 0xe0:
        return t - 256, i + 1
    if 0x80 <= t <= 0x8f or t in (0xde, 0xdf):
        n, i = ((t & 15), i + 1) if t <= 0x8f else \
            (struct.unpack_from(">H" if t == 0xde else ">I", b, i + 1)[0],
             i + (3 if t == 0xde else 5))
        d = {}
        for _ in range(n):
            k, i = unpack(b, i)
            d[k], i = unpack(b, i)
        return d, i
    if 0x90 <= t <= 0x9f or t in (0xdc, 0xdd):
        n, i = ((t & 15), i + 1) if t <= 0x9f else \
            (struct.unpack_from(">H" if t == 0xdc else ">I", b, i + 1)[0],
             i + (3 if t == 0xdc else 5))
        a = []
        for _ in range(n):
            x, i = unpack(b, i)
            a.append(x)
        return a, i
    if 0xa0 <= t <= 0xbf or t in (0xd9, 0xda, 0xdb):
        if t <= 0xbf:
            n, i = t & 31, i + 1
        else:
            w = {0xd9: 1, 0xda: 2, 0xdb: 4}[t]
            n = int.from_bytes(b[i + 1:i + 1 + w], "big")
            i += 1 + w
        return b[i:i + n].decode(), i + n
    fixed = {0xc0: (None, 1), 0xc2: (False, 1), 0xc3: (True, 1)}
    if t in fixed:
        return fixed[t][0], i + 1
    fmt = {0xca: ">f", 0xcb: ">d", 0xcc: ">B", 0xcd: ">H", 0xce: ">I",
           0xcf: ">Q", 0xd0: ">b", 0xd1: ">h", 0xd2: ">i", 0xd3: ">q"}[t]
    return struct.unpack_from(fmt, b, i + 1)[0], i + 1 + struct.calcsize(fmt)


class Client:
    def __init__(self, path):
        self.s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.s.connect(path)
        self.id = 0

    def call(self, op, fds=(), **keys):
        self.id += 1
        msg = dict(v=1, id=self.id, op=op, **keys)
        if fds:
            socket.send_fds(self.s, [pack(msg)], list(fds))
        else:
            self.s.send(pack(msg))
        return self.reply()

    def reply(self):
        while True:
            m, _ = unpack(self.s.recv(65536))
            if "status" in m:
                return m


def sealed(size, header):
    fd = os.memfd_create("page", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
    os.ftruncate(fd, size)
    os.pwrite(fd, header, 0)
    fcntl.fcntl(fd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_SHRINK |
                fcntl.F_SEAL_GROW | fcntl.F_SEAL_SEAL)
    return fd


def check(cond, what):
    if not cond:
        print("FAIL:", what)
        sys.exit(1)


def main():
    c = Client(sys.argv[1])
    r = c.call("status")
    check(r["status"] == 7, "NOHELLO before hello: %r" % r)
    r = c.call("hello", pid=os.getpid(), name="python")
    check(r["status"] == 0 and r["server"] == "bwsched" and r["proto"] == 1,
          "hello: %r" % r)
    task = sealed(4096, struct.pack("=II", 0x50545742, 1))
    max_blocks, nslots = 1000, 2
    slot = (64 + 8 * ((max_blocks + 63) // 64) + 63) & ~63
    prog = sealed(64 + nslots * slot,
                  struct.pack("=IIIII", 0x50505742, 1, nslots, slot,
                              max_blocks))
    # a descriptor the daemon cannot map (write-only) is the client's
    # fault: BADFD, not INTERNAL
    wo = os.open("/proc/self/fd/%d" % task, os.O_WRONLY)
    r = c.call("task.register", fds=(wo, prog), name="py", period_ns=10**7,
               priority=20, pages=3)
    os.close(wo)
    check(r["status"] == 11 and "cannot map" in r.get("error", ""),
          "write-only page: %r" % r)
    r = c.call("task.register", fds=(task, prog), name="py", period_ns=10**7,
               priority=20, pages=3)
    check(r["status"] == 0 and r["task"] >= 1, "task.register: %r" % r)
    r = c.call("kernel.register", name="k", blocks=1000, concurrency=100,
               clusters=[[20000, 60000], [50000, 55000]],
               intervals=[[0, 0], [400, 1], [800, 0]])
    check(r["status"] == 0 and 0 <= r["q_nominal"] <= 1 and
          r["wcet_ns"] >= r["wcet0_ns"], "kernel.register: %r" % r)
    k = r["kernel"]
    r = c.call("kernel.start", kernel=k, stream=99, slot=1)
    check(r["status"] == 0 and r["launch"] == 1, "kernel.start: %r" % r)
    # an id above 2^32-1 is one the daemon never gave out: NOENT
    for op, keys in (("kernel.start", dict(kernel=2**32 + k, stream=1)),
                     ("kernel.end", dict(kernel=2**40)),
                     ("kernels", dict(task=2**32 + 1))):
        r = c.call(op, **keys)
        check(r["status"] == 8, "%s with a 33-bit id: %r" % (op, r))
    r = c.call("status")
    check(r["holders"] == 1 and len(r["cores"]) >= 1, "holders: %r" % r)
    r = c.call("stream.sync", stream=99)
    check(r["status"] == 0 and r["locked"] is False, "stream.sync: %r" % r)
    r = c.call("get", key="smooth_a")
    check(r["status"] == 0 and abs(r["value"] - 0.3) < 1e-9, "get: %r" % r)
    c.s.send(b"\x92\x01\x02")
    r = c.reply()
    check(r["status"] == 1 and r["id"] == 0 and "error" in r,
          "MALFORMED: %r" % r)
    # an empty datagram is a malformed request, not a hang-up
    c.s.send(b"")
    r = c.reply()
    check(r["status"] == 1 and r["id"] == 0, "empty datagram: %r" % r)
    r = c.call("status")
    check(r["status"] == 0 and r["tasks"] == 1,
          "task kept after an empty datagram: %r" % r)
    print("python client: all passed")


if __name__ == "__main__":
    main()
