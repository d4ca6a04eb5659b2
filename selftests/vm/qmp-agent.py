#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Pass QMP commands from the guest to QEMU's monitor, for run-vm.sh.

    qmp-agent.py SOCKET WORKDIR

The guest cannot reach QEMU's monitor; it shares WORKDIR (as /out) with the
host. A command written by the guest to WORKDIR/qmp.req (one JSON object,
renamed into place) is sent to the QMP socket, and the answer is left in
WORKDIR/qmp.rep (renamed into place); @WORKDIR@ in a command is replaced by
WORKDIR's path on the host (for a memory backend's file). Every QMP event (DEVICE_DELETED...) is
appended to WORKDIR/qmp-events.log as it arrives. Exits when the socket
closes (QEMU is gone).
"""
import json
import os
import select
import socket
import sys
import time


def connect(path):
    for _ in range(600):
        try:
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(path)
            return s
        except OSError:
            s.close()
            time.sleep(0.1)
    sys.exit("qmp-agent: no QMP socket at %s" % path)


class Monitor:
    def __init__(self, path, events):
        self.sock = connect(path)
        self.buf = b""
        self.events = events
        self.read_msg()  # the greeting
        self.command({"execute": "qmp_capabilities"})

    def read_msg(self, timeout=None):
        while b"\n" not in self.buf:
            r, _, _ = select.select([self.sock], [], [], timeout)
            if not r:
                return None
            data = self.sock.recv(65536)
            if not data:
                sys.exit(0)
            self.buf += data
        line, self.buf = self.buf.split(b"\n", 1)
        msg = json.loads(line)
        if "event" in msg:
            with open(self.events, "a") as f:
                f.write(json.dumps(msg) + "\n")
        return msg

    def command(self, cmd):
        self.sock.sendall(json.dumps(cmd).encode() + b"\n")
        while True:
            msg = self.read_msg()
            if "return" in msg or "error" in msg:
                return msg


def main():
    sock_path, workdir = sys.argv[1:3]
    req = os.path.join(workdir, "qmp.req")
    rep = os.path.join(workdir, "qmp.rep")
    mon = Monitor(sock_path, os.path.join(workdir, "qmp-events.log"))
    while True:
        mon.read_msg(timeout=0.1)
        if not os.path.exists(req):
            continue
        with open(req) as f:
            text = f.read().replace("@WORKDIR@", workdir)
        os.unlink(req)
        try:
            answer = mon.command(json.loads(text))
        except ValueError as e:
            answer = {"error": {"class": "AgentError", "desc": "not JSON: %s" % e}}
        with open(rep + ".tmp", "w") as f:
            f.write(json.dumps(answer) + "\n")
        os.rename(rep + ".tmp", rep)


if __name__ == "__main__":
    main()
