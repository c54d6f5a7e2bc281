#!/usr/bin/env python3
"""Fake NOTIFY_SOCKET listener for the daemon tests.

notifyd.py SOCKET OUTFILE: receive sd_notify datagrams on a Unix datagram
socket and append each one's lines to OUTFILE until SIGTERM or 30 s."""
import os
import signal
import socket
import sys

path, out = sys.argv[1], sys.argv[2]
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(path)
s.settimeout(30)
signal.signal(signal.SIGTERM, lambda *a: sys.exit(0))
with open(out, "a", buffering=1) as f:
    f.write("LISTENING\n")
    while True:
        try:
            data = s.recv(4096)
        except socket.timeout:
            break
        for line in data.decode(errors="replace").splitlines():
            f.write(line + "\n")
