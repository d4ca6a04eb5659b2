#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""A service manager's end of NOTIFY_SOCKET, for the tests.

notify-listen.py SOCKET WATCHDOG_SEC: binds SOCKET (a datagram socket, as
systemd's) and prints each message as it arrives, "SECONDS MESSAGE" with the
message's lines joined by ';' (SECONDS: CLOCK_MONOTONIC). Once READY=1 came,
no WATCHDOG=1 for WATCHDOG_SEC prints "SECONDS watchdog fired": systemd
would kill the service then. Ends after STOPPING=1.
"""
import socket
import sys
import time

path, period = sys.argv[1], float(sys.argv[2])
sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
sock.bind(path)
sock.settimeout(0.05)
last = None
while True:
    try:
        msg = sock.recv(4096).decode(errors="replace")
    except socket.timeout:
        msg = None
    now = time.monotonic()
    if msg is not None:
        print("%.3f %s" % (now, ";".join(msg.strip("\n").split("\n"))), flush=True)
        fields = msg.split("\n")
        if "READY=1" in fields or "WATCHDOG=1" in fields:
            last = now
        if "STOPPING=1" in fields:
            break
    if last is not None and now - last > period:
        print("%.3f watchdog fired" % now, flush=True)
        last = None
