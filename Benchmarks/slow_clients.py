#!/usr/bin/env python3
"""Many slow devices: N keep-alive HTTP/1.1 clients, each reading segments round-robin at a fixed rate.

    slow_clients.py HOST PORT PATHS_FILE SECRET [--clients 1000] [--rate 250000] [--seconds 60] [--procs 2]

Each client sends GET for the next path (with `Authorization: Bearer SECRET`), reads the body at most RATE bytes
a second (it stops reading from the socket while over its budget, as a player with a full buffer does), then asks
for the next. Prints one JSON line: clients, errors (connections refused or cut, non-200 answers, short bodies),
and every client's achieved rate (min, median, max, spread = (max - min) / median). The clients are split over
PROCS processes so the load generator is not the bottleneck.
"""
import argparse
import asyncio
import json
import multiprocessing
import statistics
import time


class SlowClient(asyncio.Protocol):
    def __init__(self, run, paths, start):
        self.run, self.paths, self.index = run, paths, start
        self.buffer = b""
        self.remaining = None  # body bytes still to read; None: reading the head
        self.bytes = 0
        self.budget_start = None
        self.finished = None
        self.transport = None
        self.done = asyncio.get_running_loop().create_future()

    def connection_made(self, transport):
        self.transport = transport
        self.budget_start = time.monotonic()
        self.ask()

    def ask(self):
        path = self.paths[self.index % len(self.paths)]
        self.index += 1
        self.transport.write(
            f"GET {path} HTTP/1.1\r\nHost: bench\r\nAuthorization: Bearer {self.run.secret}\r\n\r\n".encode())

    def data_received(self, data):
        if self.remaining is None:
            self.buffer += data
            end = self.buffer.find(b"\r\n\r\n")
            if end < 0:
                return
            head, data = self.buffer[:end].decode("latin-1"), self.buffer[end + 4:]
            self.buffer = b""
            status = head.split(" ", 2)[1] if " " in head else "?"
            length = [line.split(":", 1)[1] for line in head.split("\r\n") if line.lower().startswith("content-length:")]
            if status != "200" or not length:
                self.fail(f"status {status}")
                return
            self.remaining = int(length[0])
        take = min(len(data), self.remaining)
        self.remaining -= take
        self.bytes += take
        if self.remaining == 0:
            self.remaining = None
            if time.monotonic() < self.run.deadline:
                self.ask()
            else:
                self.finished = time.monotonic()
                self.transport.close()
        self.throttle()

    def throttle(self):
        """Stops reading while this client is ahead of RATE bytes a second; resumes when it is back on time."""
        if self.transport.is_closing():
            return
        ahead = self.bytes / self.run.rate - (time.monotonic() - self.budget_start)
        if ahead > 0.005:
            self.transport.pause_reading()
            asyncio.get_running_loop().call_later(ahead, self.resume)

    def resume(self):
        if not self.transport.is_closing():
            self.transport.resume_reading()

    def fail(self, why):
        self.run.errors.append(why)
        self.transport.close()

    def connection_lost(self, exc):
        if time.monotonic() < self.run.deadline - 0.5 or self.remaining is not None:
            self.run.errors.append(f"connection lost: {exc}")
        if not self.done.done():
            self.done.set_result(None)


class Run:
    def __init__(self, args):
        self.secret, self.rate = args.secret, args.rate
        self.deadline = time.monotonic() + args.seconds
        self.errors = []


async def one_process(args, paths, first, count):
    run = Run(args)
    loop = asyncio.get_running_loop()
    clients = []
    for i in range(first, first + count):
        try:
            _, client = await loop.create_connection(
                lambda i=i: SlowClient(run, paths, i), args.host, args.port)
            clients.append(client)
        except OSError as error:
            run.errors.append(f"connect: {error}")
    await asyncio.wait([c.done for c in clients], timeout=args.seconds + 30)
    # Each client's rate over its own time, from its connection to its last byte.
    now = time.monotonic()
    rates = [c.bytes / max((c.finished or now) - c.budget_start, 1e-6) for c in clients if c.budget_start]
    return {"rates": rates, "errors": run.errors}


def worker(args, paths, first, count, queue):
    queue.put(asyncio.run(one_process(args, paths, first, count)))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("host")
    parser.add_argument("port", type=int)
    parser.add_argument("paths")
    parser.add_argument("secret")
    parser.add_argument("--clients", type=int, default=1000)
    parser.add_argument("--rate", type=float, default=250_000)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--procs", type=int, default=2)
    args = parser.parse_args()
    paths = [line.strip() for line in open(args.paths) if line.strip()]
    queue = multiprocessing.Queue()
    share = [args.clients // args.procs + (1 if i < args.clients % args.procs else 0) for i in range(args.procs)]
    procs, first = [], 0
    for count in share:
        p = multiprocessing.Process(target=worker, args=(args, paths, first, count, queue))
        p.start()
        procs.append(p)
        first += count
    results = [queue.get() for _ in procs]
    for p in procs:
        p.join()
    rates = sorted(r for result in results for r in result["rates"])
    errors = [e for result in results for e in result["errors"]]
    median = statistics.median(rates) if rates else 0
    print(json.dumps({
        "clients": len(rates), "errors": len(errors), "firstErrors": errors[:5],
        "minRate": rates[0] if rates else 0, "medianRate": median, "maxRate": rates[-1] if rates else 0,
        "spread": (rates[-1] - rates[0]) / median if median else 0,
        "totalMBps": sum(rates) / 1e6,
    }))


if __name__ == "__main__":
    main()
