#!/usr/bin/env python3
"""Submits N titles to a Stowage scheduler over ZeroMQ (pyzmq), pipelined, and prints submissions/s.

Usage: submit_many.py ENDPOINT N URL_PREFIX
Each title gets its own URL (URL_PREFIX/N/master.m3u8). Speaks the STW1 protocol of
Sources/StowageProtocol/PROTOCOL.md: three frames, "STW1", "REQUEST", a JSON ClientRequest.
"""
import json
import sys
import time
import uuid

import zmq

endpoint, count, prefix = sys.argv[1], int(sys.argv[2]), sys.argv[3]
socket = zmq.Context().socket(zmq.DEALER)
socket.setsockopt(zmq.LINGER, 0)
socket.connect(endpoint)
window, sent, answered, failed = 200, 0, 0, 0
start = time.monotonic()
while answered < count:
    while sent < count and sent - answered < window:
        request = {"requestID": str(uuid.uuid4()),
                   "operation": {"submit": {"_0": {"url": f"{prefix}/{sent}/master.m3u8", "priority": 0, "headers": [],
                                                   "selection": {}, "preloadOnly": False}}}}
        socket.send_multipart([b"STW1", b"REQUEST", json.dumps(request).encode()])
        sent += 1
    if not socket.poll(30_000):
        sys.exit(f"no reply from {endpoint} after {answered} of {count}")
    frames = socket.recv_multipart()
    if len(frames) == 3 and frames[1] == b"REPLY":
        answered += 1
        if "submitted" not in json.loads(frames[2])["result"]:
            failed += 1
elapsed = time.monotonic() - start
print(f"{count} submissions in {elapsed:.2f} s: {count / elapsed:.0f}/s ({failed} refused)")
