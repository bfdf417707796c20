"""Hostile clients against `mien serve --studies` with its default settings (`make study-check` part 4; `make
study-abuse` runs it with --full). Issue 78's trial, repeated: each attack asserts what the real participant meets
and the server's figures, and the figures are printed as one JSON line at the end.

- Skipping the framing check, or framing frames without a face: no stimulus socket opens.
- Sockets that trickle a frame every 1.9 s (inside the old rule of a frame every 2 s) hold every place: the real
  participant, queued, is let in once the trickle rule (a quarter of the rate asked, over 10 s) has closed one; the
  time it waited is the figure.
- Undecodable frames at the allowed rate: the analysis budget does not shrink (its lowest value is the figure).
- One token's 20 sockets while the server is full: the real participant is second in the queue, not 21st, and
  `mien_study_waiting` says 2.
- A consent with a participant's ID while they watch and between the stimulus and /complete: 409 `cannotTakePart`
  (an ID is not a credential); the victim watches on and is paid once (issue 94).
- A photo looped for the stimulus (every frame the same picture): approved, and flagged for review in approvals.csv.
- A viewing message whose timing p95 is 1e19: refused where it arrives; /complete, the dashboard's participants and
  study.html answer, and the server lives (it trapped).
- Ten bare consents against `--target A=5 B=5`: the next participant is not turned away (a place is taken by the
  framing check, not by a consent).
- 40 framing sockets sending only junk text: 16 at once (the cap at --analysis-rate 40), each closed at its deadline
  (`framingOver`); the server's memory before, during and after is the figure.
- Slow bodies (a byte every 2 s) from eight other loopback addresses against a server limited to 200 files: each
  address held to its share (503 past it), the total to what the files fit, every one closed at its deadline, and a
  real consent from another address answered (after a 503 with Retry-After at worst).
- ID probing: a completed ID and an erased one answer the same status and bytes; the times of unknown, completed
  and erased IDs are reported (medians of 15).
- 200 consents with made-up X-Forwarded-For from loopback: the burst only (the default trusts no proxy).
- Oversized consent bodies (5 kB, 1 MB, 40 MB): 413 naming the limit.
- A consent's time with 100 and 1,000 sessions in the study (10,000 and a queue wait past two minutes with --full):
  the server's CPU time per consent must not grow with the sessions.
"""

import argparse
import json
import os
import re
import shutil
import socket
import statistics
import struct
import subprocess
import threading
import time
import urllib.error
import urllib.request

import served
from checks import check, pass_framing, verdict
from served import Server, configure, finish, ready, stream, study
from websockets.exceptions import ConnectionClosed

parser = argparse.ArgumentParser()
for name in ("mien", "miendev", "sample", "out"):
    parser.add_argument(f"--{name}", required=True)
parser.add_argument("--full", action="store_true", help="10,000 sessions and a queue wait past two minutes")
args = parser.parse_args()
configure(args.mien, args.sample, args.out)
folder = os.path.join(args.out, "studies")
shutil.rmtree(folder, ignore_errors=True)
started = time.monotonic()
figures = {}
NO_FACE = b"not a picture"  # the Swift tests frame a 1x1 grey JPEG; here frames with no face at all


def consented(server, name, participant):
    status, body, _ = server.consent(name, participant)
    check(status == 201, f"{participant} consents: {status} {body}")
    return body["token"]


def framed(server, name, participant):
    """A participant who agreed and passed the framing check with the sample's face: ready for a stimulus."""
    token = consented(server, name, participant)
    pass_framing(f"{server.base.replace('http', 'ws')}/studies/{name}/live?session={token}", served.FRAME)
    served.FRAMED.add(token)
    return token


def metric(server, name):
    status, body, _ = server.http("GET", "/metrics", token="faults")
    match = re.search(rf"^{name}(?:{{[^}}]*}})? ([0-9.e+-]+)$", body.decode(), re.M) if status == 200 else None
    return float(match.group(1)) if match else None


def wait_ready(ws, limit):
    """Seconds until the socket is let in (after a queue), or None; the messages heard."""
    opened = time.monotonic()
    heard = []
    while time.monotonic() - opened < limit:
        try:
            message = json.loads(ws.recv(timeout=limit))
        except (TimeoutError, ConnectionClosed):
            break
        heard.append(message)
        if message["type"] == "ready":
            return time.monotonic() - opened, heard
        if message["type"] in ("error", "restarting"):
            break
    return None, heard


study(folder, "open", "--consent-burst", "100000", "--consents-per-minute", "100000")
study(folder, "limits")  # the default consent limit

# Framing -------------------------------------------------------------------------------------------------------
print("== a stimulus without the framing check, and frames without a face framed")
server = Server(folder)
token = consented(server, "open", "skipper")
with served.connect(f"{server.base.replace('http', 'ws')}/studies/open/live?session={token}&stimulus={served.STIMULUS}",
                   open_timeout=10) as ws:
    heard = ready(ws)
    check(heard[-1].get("error", {}).get("code") == "notFramed", f"a stimulus straight after consent: {heard}")
with served.connect(f"{server.base.replace('http', 'ws')}/studies/open/live?session={token}") as ws:
    check(ready(ws)[-1]["type"] == "ready", "the framing socket opens")
    said = []
    for index in range(15):
        ws.send(struct.pack("<d", index * 200.0) + NO_FACE)
        time.sleep(0.2)
    ws.send(json.dumps({"type": "framed"}))
    try:
        while True:
            said.append(json.loads(ws.recv(timeout=3)))
    except (TimeoutError, ConnectionClosed):
        pass
    codes = [m.get("error", {}).get("code") for m in said if m.get("type") == "error"]
    check("notFramed" in codes and not any(m.get("type") == "positioned" for m in said),
          f"frames without a face are not framed: {codes}")
server.stop()

# Trickling sockets ------------------------------------------------------------------------------------------------
print("== two sockets trickling a frame every 1.9 s hold both places; the real participant waits")
server = Server(folder, "--analysis-rate", "10")  # two places at the study's floor of 5 frames a second
tricklers = [framed(server, "open", f"trickle{index}") for index in range(2)]
real = framed(server, "open", "real1")
closed = []


def trickle(token):
    with server.socket("open", token) as ws:
        if ready(ws)[-1]["type"] != "ready":
            return
        began = time.monotonic()
        try:
            while time.monotonic() - began < 30:
                ws.send(struct.pack("<d", (time.monotonic() - began) * 1000) + served.FRAME)
                deadline = time.monotonic() + 1.9
                while time.monotonic() < deadline:
                    try:
                        message = json.loads(ws.recv(timeout=max(0.01, deadline - time.monotonic())))
                    except TimeoutError:
                        break
                    if message.get("type") == "error" and message["error"]["code"] == "idle":
                        closed.append(round(time.monotonic() - began, 1))
        except ConnectionClosed:
            pass


threads = [threading.Thread(target=trickle, args=(token,)) for token in tricklers]
for thread in threads:
    thread.start()
time.sleep(1)
with server.socket("open", real) as ws:
    waited, heard = wait_ready(ws, 40)
    check(any(m["type"] == "queued" for m in heard), f"the real participant queues behind the tricklers: {heard}")
    check(waited is not None and waited < 30, f"the real participant is let in within 30 s: {waited} ({heard[-1:]})")
    figures["trickle_wait_s"] = round(waited or -1, 1)
for thread in threads:
    thread.join()
check(len(closed) == 2 and all(9 <= after <= 16 for after in closed),
      f"both trickling sockets are told and closed after the 10-s window: {closed}")
figures["trickle_closed_after_s"] = closed

# Poisoning frames -----------------------------------------------------------------------------------------------
print("== undecodable frames at the allowed rate for 8 s")
capacity = metric(server, "mien_study_frame_budget")
poisoner = framed(server, "open", "poison")
lowest = capacity
with server.socket("open", poisoner) as ws:
    check(ready(ws)[-1]["type"] == "ready", "the poisoner's socket opens")
    began = time.monotonic()
    index = 0
    while time.monotonic() - began < 8:
        ws.send(struct.pack("<d", index * 100.0) + b"not a picture")
        index += 1
        time.sleep(0.1)
        if index % 10 == 0:
            lowest = min(lowest, metric(server, "mien_study_frame_budget") or 0)
after = metric(server, "mien_study_frame_budget")
check(capacity and lowest >= capacity * 0.99 and after >= capacity * 0.99,
      f"the budget is not poisoned: {capacity} before, {lowest} lowest, {after} after")
figures["budget_capacity"], figures["budget_lowest_under_poison"] = capacity, lowest
server.stop()

# One token's many sockets, and a consent with a watching participant's ID ----------------------------------------
print("== one token's 20 sockets while the server is full; a consent with the watcher's ID")
server = Server(folder, "--analysis-rate", "5")  # one place
victim = framed(server, "open", "victim")
many = framed(server, "open", "many")
real = framed(server, "open", "real2")
result = {}


def victim_watches():
    with server.socket("open", victim) as ws:
        result["victim_ready"] = ready(ws)[-1]["type"]
        # The place is held while the attack below runs: frames at the rate asked meanwhile (the trickle rule).
        stream(ws, start=0.0, seconds=5.0, rate=5)
        # A forged viewing message: a number that once trapped when it became an integer (issue 94).
        ws.send(json.dumps({"type": "viewing", "timing": {"method": "frameCallback", "frames": 40, "median": 12,
                                                          "p95": 1e19, "max": 1e19}}))
        stream(ws, start=5.0, seconds=3.0, rate=5)
        result["victim_ended"] = finish(ws)


watcher = threading.Thread(target=victim_watches)
watcher.start()
time.sleep(1)
sockets = []
for _ in range(20):
    ws = server.socket("open", many)
    sockets.append(ws)
    ready_or_queued = json.loads(ws.recv(timeout=10))
    check(ready_or_queued["type"] == "queued", f"a socket of one token waits: {ready_or_queued}")
status, body, _ = server.consent("open", "victim")
check(status == 409 and body["error"]["code"] == "cannotTakePart", f"a consent with a watching ID: {status} {body}")
with server.socket("open", real) as ws:
    position = json.loads(ws.recv(timeout=10))
    check(position["type"] == "queued" and position["position"] <= 2,
          f"the real participant is second at most, not 21st: {position}")
    figures["queue_position_behind_20_sockets"] = position.get("position")
    check(metric(server, "mien_study_waiting") == 2, f"mien_study_waiting: {metric(server, 'mien_study_waiting')}")
for ws in sockets:
    ws.close()
watcher.join()
check(server.process.poll() is None, "the server lives after a viewing message with p95 1e19")
# Between the stimulus and /complete no socket is open: the ID takes nothing then either.
status, body, _ = server.consent("open", "victim")
check(status == 409 and body["error"]["code"] == "cannotTakePart" and "token" not in body,
      f"a consent with the ID of someone about to complete: {status} {body}")
status, body, _ = server.http("POST", "/studies/open/complete", b"{}", token=victim)
check(status == 200 and json.loads(body).get("code"), f"the victim completes: {status} {body}")
for table in ("participants", "study.html"):
    status, _, _ = server.http("GET", f"/studies/open/dashboard/{table}", token="faults")
    check(status == 200 and server.process.poll() is None, f"the dashboard's {table} after the forged number: {status}")
status, again, _ = server.http("POST", "/studies/open/complete", b"{}", token=victim)
check(json.loads(again).get("code") == json.loads(body).get("code"), "paid once: the same code again")
# Every frame the victim sent is the same photo: approved, and flagged for review before paying (issue 94 item 7).
status, approvals, _ = server.http("GET", "/studies/open/dashboard/approvals.csv", token="faults")
row = next((line for line in approvals.decode().splitlines() if line.startswith("victim,")), "")
check(status == 200 and "no natural movement" in row and ",approve," in row,
      f"a photo looped for the stimulus is flagged for review in approvals.csv: {row}")

# ID probing ----------------------------------------------------------------------------------------------------
print("== ID probing: unknown, completed and erased IDs")
consented(server, "open", "erased1")
status, _, _ = server.http("DELETE", "/studies/open/participants/erased1", token="faults")
check(status in (200, 204), f"erasure: {status}")
times = {"unknown": [], "completed": [], "erased": []}
answers = {"completed": set(), "erased": set()}
for index in range(15):
    for kind, participant in (("unknown", f"probe{index}"), ("completed", "victim"), ("erased", "erased1")):
        began = time.monotonic()
        status, body, _ = server.http("POST", "/studies/open/sessions",
                                      json.dumps({"agreed": True, "participant": participant}).encode())
        times[kind].append((time.monotonic() - began) * 1000)
        if kind != "unknown":
            answers[kind].add((status, body))
check(len(answers["completed"]) == 1 and answers["completed"] == answers["erased"],
      f"a completed ID and an erased one answer alike: {answers}")
for kind, values in times.items():
    figures[f"consent_ms_{kind}_id"] = round(statistics.median(values), 2)

# Forwarded-for floods and oversized bodies ------------------------------------------------------------------------
print("== 200 consents with made-up X-Forwarded-For; oversized bodies")
taken = 0
for index in range(200):
    request = urllib.request.Request(
        server.base + "/studies/limits/sessions", data=b'{"agreed": true}', method="POST",
        headers={"Content-Type": "application/json", "X-Forwarded-For": f"203.0.{index // 250}.{index % 250}"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            taken += response.status == 201
    except urllib.error.HTTPError:
        pass
check(taken <= 20, f"made-up X-Forwarded-For is not believed: {taken} of 200 taken")
figures["forwarded_for_flood_taken_of_200"] = taken
def post_large(path, size):
    """POSTs a body of `size` bytes, reading the answer while it is sent (as browsers and curl do: a server may
    answer before the body ends); returns the answer's status line and body."""
    host, port = server.base.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=20) as connection:
        connection.sendall(f"POST {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
                           f"Content-Length: {size}\r\n\r\n".encode())

        stuck = []

        def send():
            try:
                connection.sendall(b"{" + b" " * (size - 2) + b"}")
            except TimeoutError:
                stuck.append(True)  # the server neither read the rest nor closed the connection
            except OSError:
                pass  # closed by the server once it answered: what it should do

        sender = threading.Thread(target=send)
        sender.start()
        answer = b""
        try:
            while b"\r\n\r\n" not in answer or len(answer.split(b"\r\n\r\n", 1)[1]) < 40:
                chunk = connection.recv(65536)
                if not chunk:
                    break
                answer += chunk
        except OSError:
            pass
        sender.join(timeout=25)
        closed = not sender.is_alive() and not stuck
    head, _, body = answer.partition(b"\r\n\r\n")
    return head.split(b"\r\n")[0].decode(errors="replace"), body, closed


for size in (5_000, 1 << 20, 40 << 20):
    status, body, closed = post_large("/studies/open/sessions", size)
    check(" 413 " in status and b"at most 4096 bytes" in body and closed,
          f"a {size}-byte consent: {status} {body[:120]}, connection closed: {closed}")
server.stop()

# Bare consents against targets --------------------------------------------------------------------------------
print("== ten bare consents against --target A=5 B=5")
study(folder, "quota", "--groups", "A,B", "--target", "A=5", "--target", "B=5")
server = Server(folder)
for index in range(10):
    status, body, _ = server.consent("quota", f"bare{index}")
    check(status == 201, f"bare consent {index}: {status} {body}")
status, body, _ = server.consent("quota", "real3")
check(status == 201, f"the next participant after ten bare consents is not turned away: {status} {body}")
real = body.get("token", "")
pass_framing(f"{server.base.replace('http', 'ws')}/studies/quota/live?session={real}", served.FRAME)
served.FRAMED.add(real)
with server.socket("quota", real) as ws:
    check(ready(ws)[-1]["type"] == "ready", "the next participant watches")
server.stop()

# Junk framing sockets --------------------------------------------------------------------------------------------
print("== 40 framing sockets sending only junk text")
path = study(folder, "junk", "--consent-burst", "100000", "--consents-per-minute", "100000")
settings = json.load(open(os.path.join(path, "settings.json")))
settings["framing"]["timeoutSeconds"] = 5  # the page's try; the server allows 15 s more: closed at 20 s
json.dump(settings, open(os.path.join(path, "settings.json"), "w"))
server = Server(folder, "--analysis-rate", "40")  # 16 framing checks at once


def rss_mb(pid):
    return int(re.search(r"VmRSS:\s+(\d+)", open(f"/proc/{pid}/status").read()).group(1)) / 1024


# One real framing check first: the models a check loads are the server's, not the junk's.
warm = consented(server, "junk", "warm")
pass_framing(f"{server.base.replace('http', 'ws')}/studies/junk/live?session={warm}", served.FRAME)
time.sleep(12)  # its memory returned once it closed
junk_tokens = [consented(server, "junk", f"junk{index}") for index in range(40)]
before = rss_mb(server.process.pid)
ends, first_messages, how = [], {}, {}


def junk(token):
    opened = time.monotonic()
    try:
        with served.connect(f"{server.base.replace('http', 'ws')}/studies/junk/live?session={token}",
                            open_timeout=10) as ws:
            while time.monotonic() - opened < 90:
                try:
                    ws.send('{"type": "junk", "pad": "' + "x" * 1000 + '"}')
                    message = json.loads(ws.recv(timeout=2))
                    first_messages.setdefault(token, message["type"])
                    if message["type"] == "error" and message["error"]["code"] == "framingOver":
                        how[token] = "framingOver"
                        ends.append(time.monotonic() - opened)
                except TimeoutError:
                    pass
            how.setdefault(token, "still open after 90 s")
    except ConnectionClosed as closed:
        # A send racing the server's close raises before the error text before it is read: the close says it too.
        # When the send fails on a connection the server has already torn down, the client never reads the close
        # frame (rcvd None; once in a local run of issue 95's change, at 41 s): a close by the server after the
        # framing deadline (20 s) is counted as that close, and its time still bounded below.
        elapsed = time.monotonic() - opened
        if token not in how and closed.rcvd and closed.rcvd.reason == "framing check over":
            how[token] = "framingOver"
            ends.append(elapsed)
        elif token not in how and closed.rcvd is None and elapsed >= 19:
            how[token] = "framingOver"
            ends.append(elapsed)
        how.setdefault(token, f"closed {closed.rcvd.code if closed.rcvd else '-'} "
                              f"({closed.rcvd.reason if closed.rcvd else ''}) after {time.monotonic() - opened:.0f} s")


threads = [threading.Thread(target=junk, args=(token,)) for token in junk_tokens]
for thread in threads:
    thread.start()
time.sleep(10)
during = rss_mb(server.process.pid)
for thread in threads:
    thread.join()
time.sleep(12)  # the memory a check held is returned 10 s after the last closes
after = rss_mb(server.process.pid)
opened_at_once = sum(kind == "ready" for kind in first_messages.values())
check(opened_at_once == 16, f"16 framing checks at once, the rest queued: {opened_at_once} ready at first")
check(len(ends) == 40 and max(ends) < 80, f"every junk framing socket closed at its deadline: {len(ends)} closed, "
      f"the last after {max(ends, default=0):.0f} s; the others: {sorted(set(how.values()) - {'framingOver'})}")
check(after <= before + 30, f"memory returns: {before:.0f} MB before, {during:.0f} MB during, {after:.0f} MB after")
figures["junk_framing_rss_mb"] = [round(before), round(during), round(after)]
figures["junk_framing_closed_after_s"] = round(min(ends, default=-1), 1)
real = consented(server, "junk", "real4")
pass_framing(f"{server.base.replace('http', 'ws')}/studies/junk/live?session={real}", served.FRAME)
server.stop()

# Slow bodies -------------------------------------------------------------------------------------------------------
print("== slow bodies from eight addresses against a server limited to 200 files")
server = Server(folder, "--idle-seconds", "5", files=200)
host, port = server.base.removeprefix("http://").split(":")
slow, refused = [], 0
for source in range(2, 10):
    for _ in range(20):
        connection = socket.create_connection((host, int(port)), timeout=5, source_address=(f"127.0.0.{source}", 0))
        connection.sendall(b"POST /studies/open/sessions HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\n"
                           b"Content-Length: 1000\r\n\r\n")
        slow.append(connection)
time.sleep(0.5)
began = time.monotonic()
status, tries, resets = None, 0, 0
while status != 201 and time.monotonic() - began < 30:
    tries += 1
    try:
        status, body, headers = server.http("POST", "/studies/open/sessions",
                                            json.dumps({"agreed": True, "participant": f"slowreal{tries}"}).encode())
    except OSError:
        # A reset: a browser's fetch meets it as a network error and tries again; the server's lingering close
        # should make it rare (the 503 is read before the close).
        status, resets = None, resets + 1
        time.sleep(1)
        continue
    if status == 503:
        check(headers.get("Retry-After"), f"a 503 says when to retry: {dict(headers)}")
        time.sleep(1)
figures["slow_bodies_consent_resets"] = resets
figures["slow_bodies_real_consent_s"] = round(time.monotonic() - began, 1)
check(status == 201, f"a real consent beside slow bodies: {status} after {tries} tries")
deadline = time.monotonic() + 20
while slow and time.monotonic() < deadline:
    for connection in list(slow):
        try:
            connection.settimeout(0.01)
            # An answer (503 at once past a limit) or the close at the deadline: done either way.
            refused += connection.recv(4096).startswith(b"HTTP/1.1 503")
            slow.remove(connection)
            connection.close()
        except (TimeoutError, BlockingIOError):
            try:
                connection.sendall(b" ")  # a byte every 2 s: never idle for the 5-s limit
            except OSError:
                pass
        except OSError:
            slow.remove(connection)
            connection.close()
    time.sleep(2)
check(not slow, f"every slow body closed within 20 s: {len(slow)} open")
check(refused >= 160 - 68, f"connections past the limits answered 503: {refused} of 160")
figures["slow_bodies_refused_503_of_160"] = refused
check(server.process.poll() is None, "the server lives")
server.stop()

# Consent time at scale -------------------------------------------------------------------------------------------
# Wall time (median of 50) is the figure; the check is on the server's CPU time per consent (from /proc, so a busy
# machine beside it matters less), which must not grow with the sessions: the indexes, not scans (issue 78).
sessions = 10_000 if args.full else 1_000
print(f"== a consent's time with 100 and {sessions} sessions")
server = Server(folder)


def cpu_seconds(pid):
    fields = open(f"/proc/{pid}/stat").read().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def timed_consents(label):
    """Medians of 50 consents' wall times (ms), and the server's CPU time per consent (ms) over them."""
    wall = []
    cpu = cpu_seconds(server.process.pid)
    for index in range(50):
        began = time.monotonic()
        status, _, _ = server.consent("open", f"{label}{index}")
        wall.append((time.monotonic() - began) * 1000)
        check(status == 201, f"a consent ({label}{index}): {status}")
    return statistics.median(wall), (cpu_seconds(server.process.pid) - cpu) * 1000 / 50


def load_to(count):
    have = len(os.listdir(os.path.join(folder, "open", "participants")))
    for index in range(have, count - 50):
        server.consent("open", f"load{index}")


load_to(100)
small_wall, small_cpu = timed_consents("few")
load_to(sessions)
wall, cpu = timed_consents("timed")
figures["consent_ms_at_100_sessions"] = round(small_wall, 2)
figures[f"consent_ms_at_{sessions}_sessions"] = round(wall, 2)
figures["consent_cpu_ms_at_100_sessions"] = round(small_cpu, 2)
figures[f"consent_cpu_ms_at_{sessions}_sessions"] = round(cpu, 2)
print(f"  a consent at 100 sessions: {small_wall:.2f} ms ({small_cpu:.2f} ms of the server's CPU); at {sessions}: "
      f"{wall:.2f} ms ({cpu:.2f} ms CPU) (medians of 50)")
# Before the indexes: 14 ms at 1,000 sessions and 73 ms at 10,000 (CPU time grew with them); now about 4 ms both.
check(cpu <= 2 * small_cpu + 2, f"a consent's CPU time grows with the sessions: {small_cpu:.2f} ms at 100, "
      f"{cpu:.2f} ms at {sessions}")

if args.full:
    server.stop()
    began = time.monotonic()
    server = Server(folder, start_timeout=600)  # a folder store reads every session at its start
    figures[f"start_s_at_{sessions}_sessions"] = round(time.monotonic() - began, 1)
    print(f"  the server's start with {sessions} sessions: {figures[f'start_s_at_{sessions}_sessions']} s")
    server.stop()
    print("== a queue wait past two minutes")
    folder = os.path.join(args.out, "queue")  # a study of its own: the server starts at once
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    clip = os.path.join(args.out, "long.mp4")  # 160 s: a stimulus long enough to hold a place that long
    subprocess.run([args.miendev, "make-clip", "--width", "320", "--height", "240", "--frames", "2400", "--fps", "15",
                    clip], check=True, capture_output=True)
    study(folder, "long", "--stimulus", clip, "--consent-burst", "100000")
    server = Server(folder, "--analysis-rate", "5")
    holder = framed(server, "long", "holder")
    patient = framed(server, "long", "patient")

    def hold():
        with served.connect(f"{server.base.replace('http', 'ws')}/studies/long/live?session={holder}&stimulus=long",
                            max_size=None) as ws:
            if ready(ws)[-1]["type"] == "ready":
                stream(ws, seconds=140, rate=5)

    thread = threading.Thread(target=hold)
    thread.start()
    time.sleep(2)
    with served.connect(f"{server.base.replace('http', 'ws')}/studies/long/live?session={patient}&stimulus=long",
                        max_size=None) as ws:
        waited, heard = wait_ready(ws, 200)
        check(waited is not None and waited > 120, f"let in after waiting past two minutes: {waited} {heard[-2:]}")
        figures["queue_wait_s"] = round(waited or -1, 1)
    thread.join()
server.stop()

verdict(" (abuse)")
print(json.dumps({"study_abuse": figures}, sort_keys=True))
print(f"study-check: every attack failed ({time.monotonic() - started:.0f} s)")
