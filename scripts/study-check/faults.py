"""What fieldwork meets, against real `mien serve` processes (`make study-check` part 3, run by run.sh).

Each case ends with a clear message to the page, a line in the server's log, and nothing measured lost:
- a full disk (a 3 MiB tmpfs filled mid-stimulus): the stimulus stops with `notSaved`, no completion code, a
  consent on the full disk answers 503 without a path and leaves no session; once there is room again the same
  participant goes on and completes;
- kill -9 mid-stimulus: the next server recovers the frames measured into committed files with a manifest row and
  the share measured, leaves no temporary file, and the participant goes on;
- SIGTERM mid-stimulus: the page is told `restarting` (close 1012), the participant goes on after the restart;
- 300 anonymous consents from one address: a burst is taken, the rest answered 429 with Retry-After;
- idle and squatting sockets: framing sockets that send nothing take no place and are closed at the idle limit;
- a stimulus ended with no frame, or with two frames at its start and end: no completion code;
- ID probing: a completed ID's answer says nothing of its state; a probe of a new ID does not lock its owner out.
"""

import argparse
import json
import os
import re
import shutil
import signal
import struct
import subprocess
import sys
import time

import served
from checks import check, verdict
from served import STIMULUS, Server, configure, finish, ready, stream, study, watch_whole
from websockets.exceptions import ConnectionClosed

parser = argparse.ArgumentParser()
for name in ("mien", "sample", "out"):
    parser.add_argument(f"--{name}", required=True)
args = parser.parse_args()
configure(args.mien, args.sample, args.out)


started = time.monotonic()

# A full disk -------------------------------------------------------------------------------------------------
print("== a full disk mid-stimulus")
disk = os.path.join(args.out, "disk")
os.makedirs(disk, exist_ok=True)
sudo = [] if os.geteuid() == 0 else ["sudo"]
subprocess.run([*sudo, "umount", disk], capture_output=True)
mounted = subprocess.run([*sudo, "mount", "-t", "tmpfs", "-o", "size=3m", "tmpfs", disk], capture_output=True, text=True)
if not check(mounted.returncode == 0, f"a tmpfs for the full-disk case: {mounted.stderr.strip()}"):
    sys.exit("study-check faults: cannot mount a tmpfs (needs root or sudo)")
try:
    study(disk, "full")
    server = Server(disk)
    filler = os.path.join(disk, "filler")
    status, d1, _ = server.consent("full", "d1")
    with server.socket("full", d1["token"]) as ws:
        check(ready(ws)[-1]["type"] == "ready", "d1 ready")
        stream(ws, seconds=0.8)
        # The disk fills: every byte left taken.
        subprocess.run(["dd", "if=/dev/zero", f"of={filler}", "bs=64k"], capture_output=True)
        said = stream(ws, start=0.8, seconds=1.5)
        try:
            while True:
                said.append(json.loads(ws.recv(timeout=5)))
        except (TimeoutError, ConnectionClosed):
            pass
        close = ws.close_code if ws.close_code is not None else None
    errors = [m["error"]["code"] for m in said if m.get("type") == "error"]
    check("notSaved" in errors and errors.count("notStarted") == 0, f"full disk: the page is told once: {errors}")
    check(close == 1011, f"full disk: the socket closed with 1011: {close}")
    status, body, _ = server.http("POST", "/studies/full/complete", token=d1["token"])
    check(status == 409 and b"code" not in body.replace(b'"code":"sessionEnded"', b""), f"no completion code: {status} {body}")
    # What the server freed when it dropped the stimulus's other files is taken too: the disk stays full.
    subprocess.run(["dd", "if=/dev/zero", f"of={filler}2", "bs=4k"], capture_output=True)
    status, body, _ = server.consent("full", "d2")
    check(status == 503 and disk.encode() not in json.dumps(body).encode(), f"a consent on a full disk: {status} {body}")
    check(not os.path.exists(os.path.join(disk, "full", "participants", "d2")), "no ghost of d2's consent")
    check("NOT SAVED" in server.text() and "cannot be saved" in server.text(), "the log says what was not saved")
    # By participant number, with no server path (issue 78): the line that says it was not saved.
    unsaved = [line for line in server.text().splitlines() if "NOT SAVED" in line]
    check(unsaved and all(disk not in line and "/d1/" not in line for line in unsaved), f"the NOT SAVED line: {unsaved}")
    check(server.session("full", "d1").get("reasonCode") == "notSaved", f"d1 recorded: {server.session('full', 'd1')}")
    # Room again: d1 goes on and completes; what was measured before the disk filled is kept apart.
    os.remove(filler)
    os.remove(f"{filler}2")
    status, back, _ = server.http("POST", "/studies/full/resume", token=d1["token"])
    check(status == 200, f"d1 comes back: {status} {back}")
    ended = watch_whole(server, "full", d1["token"])
    check(any(m.get("type") == "ended" and m.get("enough") for m in ended), f"d1's stimulus again: {ended}")
    status, body, _ = server.http("POST", "/studies/full/complete", token=d1["token"])
    check(status == 200 and json.loads(body).get("code"), f"d1 completes once there is room: {status} {body}")
    row = server.session("full", "d1")
    check(row.get("attempts") == 1 and os.path.exists(os.path.join(disk, "full", "participants", "d1",
                                                                    f"{STIMULUS}.attempt1.jsonl")),
          f"what d1 measured before the disk filled is kept apart: {row}")
    server.stop()
finally:
    subprocess.run([*sudo, "umount", disk], capture_output=True)

# kill -9 and SIGTERM --------------------------------------------------------------------------------------------
print("== kill -9 and SIGTERM mid-stimulus")
folder = os.path.join(args.out, "studies")
shutil.rmtree(folder, ignore_errors=True)
os.makedirs(folder)
crash = study(folder, "crash")
server = Server(folder)
_, k1, _ = server.consent("crash", "k1")
ws = server.socket("crash", k1["token"])
check(ready(ws)[-1]["type"] == "ready", "k1 ready")
stream(ws, seconds=1.5)
time.sleep(0.5)  # the frames sent are analysed
server.stop(signal.SIGKILL)
server = Server(folder)
row = server.session("crash", "k1")
check(row.get("state") == "incomplete" and row.get("reasonCode") == "serverStopped", f"k1 after kill -9: {row}")
check(row.get("analysedShare") and (row.get("coverage") or 0) >= 0.35, f"k1's frames recovered: {row}")
leftovers = [n for _, _, names in os.walk(crash) for n in names if ".partial-" in n]
check(not leftovers, f"no temporary file after recovery: {leftovers}")
manifest = open(os.path.join(crash, "manifest.csv")).read()
check(",k1," in manifest and ",incomplete," in manifest, f"k1 in the manifest: {manifest}")
lines = open(os.path.join(crash, "participants", "k1", f"{STIMULUS}.jsonl")).read().splitlines()
check(len(lines) >= 10 and all(line.startswith("{") and line.endswith("}") for line in lines),
      f"k1's committed results: {len(lines)} whole lines")
check("recovered after the server stopped" in server.text(), "the log says what was recovered")
# k1 goes on; k2 is mid-stimulus when the server is stopped with SIGTERM.
check(server.http("POST", "/studies/crash/resume", token=k1["token"])[0] == 200, "k1 comes back after the crash")
_, k2, _ = server.consent("crash", "k2")
ws = server.socket("crash", k2["token"])
check(ready(ws)[-1]["type"] == "ready", "k2 ready")
stream(ws, seconds=1.0)
server.process.send_signal(signal.SIGTERM)
said = []
try:
    while True:
        said.append(json.loads(ws.recv(timeout=10)))
except (TimeoutError, ConnectionClosed):
    pass
check({"type": "restarting"} in said and ws.close_code == 1012, f"SIGTERM: the page is told: {said} {ws.close_code}")
check(server.stop() == 0, "mien serve exits 0 after SIGTERM")
server = Server(folder)
row = server.session("crash", "k2")
check(row.get("state") == "incomplete" and "restarted" in (row.get("reason") or ""), f"k2 after SIGTERM: {row}")
for participant, token in (("k1", k1["token"]), ("k2", k2["token"])):
    check(server.http("POST", "/studies/crash/resume", token=token)[0] == 200, f"{participant} comes back")
    watch_whole(server, "crash", token)
    status, body, _ = server.http("POST", "/studies/crash/complete", token=token)
    check(status == 200, f"{participant} completes after the restart: {status} {body}")
server.stop()

# Abuse, and honesty ---------------------------------------------------------------------------------------------
print("== a consent burst, idle and squatting sockets, empty and sparse stimuli, ID probing")
study(folder, "open")
study(folder, "burst")  # the consent limit is per study and address: the burst uses up its own
server = Server(folder, "--idle-seconds", "3", "--analysis-rate", "10")
burst_started = time.monotonic()
answers = [server.consent("burst") for _ in range(300)]
statuses = [status for status, _, _ in answers]
accepted = statuses.count(201)
check(accepted <= 25 and statuses.count(429) == 300 - accepted, f"300 anonymous consents: {accepted} taken")
retry = [headers.get("Retry-After") for status, _, headers in answers if status == 429]
check(retry and all(value and int(value) >= 1 for value in retry), f"429 says when to retry: {retry[:3]}")
print(f"  300 consents in {time.monotonic() - burst_started:.1f} s: {accepted} taken, the rest 429")
tokens = [server.consent("open")[1]["token"] for _ in range(5)]
# Four squatters open framing sockets and send nothing: no place taken, closed at the idle limit.
squatters = [server.socket("open", token, stimulus=None) for token in tokens[:4]]
for squatter in squatters:
    check(ready(squatter)[-1]["type"] == "ready", "a framing socket is ready")
with server.socket("open", tokens[4]) as ws:
    check(ready(ws)[-1]["type"] == "ready", "a participant is let in past four silent framing sockets")
    time.sleep(4)
    for squatter in squatters:
        said = []
        try:
            while True:
                said.append(json.loads(squatter.recv(timeout=2)))
        except (TimeoutError, ConnectionClosed):
            pass
        check(any(m.get("error", {}).get("code") == "idle" for m in said), f"a silent socket closed at the idle limit: {said}")
# `end` with no frame, then `complete`: no code.
_, empty, _ = server.consent("open", "e1")
with server.socket("open", empty["token"]) as ws:
    ready(ws)
    ended = finish(ws)
check(any(m.get("type") == "ended" and not m.get("enough") for m in ended), f"an empty stimulus is not enough: {ended}")
status, body, _ = server.http("POST", "/studies/open/complete", token=empty["token"])
check(status == 409, f"no code after an empty stimulus: {status} {body}")
# Two frames, at the start and the end: 17 % of the stimulus, not all of it.
_, sparse, _ = server.consent("open", "s1")
with server.socket("open", sparse["token"]) as ws:
    ready(ws)
    ws.send(struct.pack("<d", 0) + served.FRAME)
    ws.send(struct.pack("<d", 2900) + served.FRAME)
    time.sleep(1)
    ended = finish(ws)
outcome = next((m for m in ended if m.get("type") == "ended"), {})
check(outcome.get("coverage", 1) < 0.3 and not outcome.get("enough"), f"frames at 0 and 2.9 s: {outcome}")
status, body, _ = server.http("POST", "/studies/open/complete", token=sparse["token"])
check(status == 409, f"no code for two frames: {status} {body}")
# Probing IDs: a completed ID says nothing of its state.
_, done, _ = server.consent("open", "owner1")
watch_whole(server, "open", done["token"])
check(server.http("POST", "/studies/open/complete", token=done["token"])[0] == 200, "owner1 completes")
status, body, _ = server.consent("open", "owner1")
check(status == 409 and body["error"]["code"] == "cannotTakePart" and "complete" not in json.dumps(body),
      f"a completed ID probed: {status} {body}")
# An ID is not a credential (issue 94): a second consent with an ID in progress is refused in the same words as a
# completed one (nothing of the session told or given), and the first consent's token goes on.
status, probe, _ = server.consent("open", "owner2")
status2, owner, _ = server.consent("open", "owner2")
check(status == 201 and status2 == 409 and owner["error"]["code"] == "cannotTakePart"
      and owner["error"] == body["error"], f"a second consent with an ID in progress: {status} {status2} {owner}")
check(server.http("POST", "/studies/open/resume", token=probe["token"])[0] == 200, "the first consent's token goes on")
check("study burst: a consent was refused: too many from one address" in server.text(),
      "the log says consents were refused")
server.stop()
# A flood is its first line and a count (the count logged when its minute ends, or at the stop), not 280 lines.
refusals = [line for line in server.text().splitlines() if "too many from one address" in line]
check(len(refusals) == 2 and re.search(r"; \d+ more like it in the \d+ s since", refusals[-1]),
      f"the burst's refusals in the log: {len(refusals)} lines, the last {refusals[-1:]}")

verdict(" (faults)")
print(f"study-check: every fault case passed ({time.monotonic() - started:.0f} s)")
