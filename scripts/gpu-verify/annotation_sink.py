#!/usr/bin/env python3
"""Stands in for the receiving side of `gpuwatch record`: runs a command with
GPUWATCH_SOCKET set to a socket of its own and writes every annotation it
receives as one JSON line (with the receipt time) to OUTPUT.

    annotation_sink.py OUTPUT -- python3 train.py ...

Exits with the command's status. For checking the Python client and the
training scripts on a machine without a gpuwatch build.
"""
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time


def main():
    if len(sys.argv) < 4 or sys.argv[2] != "--":
        sys.exit("usage: annotation_sink.py OUTPUT -- COMMAND [ARG...]")
    output, command = sys.argv[1], sys.argv[3:]
    directory = tempfile.mkdtemp(prefix="gwsink")
    path = os.path.join(directory, "annotations.sock")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    sock.settimeout(0.2)
    stop = threading.Event()
    lines = []

    def receive():
        while not stop.is_set():
            try:
                data = sock.recv(65536)
            except socket.timeout:
                continue
            lines.append(json.dumps({"recv_mono_ns": time.monotonic_ns(), "message": json.loads(data)}))

    receiver = threading.Thread(target=receive)
    receiver.start()
    status = subprocess.call(command, env=dict(os.environ, GPUWATCH_SOCKET=path))
    time.sleep(0.5)  # what the child sent at exit is already queued; let the thread take it
    stop.set()
    receiver.join()
    sock.close()
    os.unlink(path)
    os.rmdir(directory)
    with open(output, "w", encoding="utf-8") as f:
        f.write("".join(line + "\n" for line in lines))
    sys.exit(status if status >= 0 else 128 - status)


if __name__ == "__main__":
    main()
