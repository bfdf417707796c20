"""Issue 80's trial: faces related to answers end to end (study-check part 1b, run by run.sh after check.py).

24 participants take part in study `trial` over the participant's sockets, as the page drives them (consent, the
framing check the server judges, a stimulus's frames on stimulus time in real time, its end, a page of answers after
it and one at the end, completion), four at a time. Their camera is a still face of the Yale faces (held-out
footage: 8 people, each as 3 participants: happy, normal and sad), and their answers are set here: the happy ones
like the advert, the others do not, but for one exception each way. `mien study` must then find it: prediction.csv's
cross-validated AUC for liking well above chance and passing its permutation test, relations.csv's smile features
going with liking, and study.html's summary saying both. The figures are printed for the closing note.

Usage: trial.py --base URL --token TOKEN --studies DIR --out DIR --mien MIEN --faces YALEFACES
"""

import argparse
import concurrent.futures
import csv
import json
import os
import struct
import subprocess
import sys
import time
import urllib.error
import urllib.request

from checks import check, nothing_happened, pass_framing, verdict
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

parser = argparse.ArgumentParser()
for name in ("base", "token", "studies", "out", "mien", "faces"):
    parser.add_argument(f"--{name}", required=True)
args = parser.parse_args()
STUDY, STIMULUS = "trial", "astronaut-pan-zoom"

if not os.path.isdir(args.faces):
    print(f"study-check part 1b: 0 passed, 0 failed, 1 skipped ({args.faces} is absent: the trial's faces)")
    sys.exit(1 if os.environ.get("CI") == "true" else 0)

# (subject, expression, liking 1-7): the happy like it, the others do not, but for one exception each way (a
# first run with two each way, 17 % of the answers against the face, gave a liking AUC of 0.68 [0.41, 0.93], p = 0.15:
# 24 participants and 20 features find a relation that strong only in the correlations).
VIEWERS = [(f"subject{index:02d}", expression) for index in range(1, 9) for expression in ("happy", "normal", "sad")]
LIKING = {viewer: (6 + index % 2 if viewer[1] == "happy" else 1 + index % 3) for index, viewer in enumerate(VIEWERS)}
LIKING[("subject07", "happy")] = 3
LIKING[("subject03", "normal")] = 6


def http(method, path, body=None, token=None):
    request = urllib.request.Request(args.base + path, data=body, method=method,
                                     headers={"Content-Type": "application/json"})
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def take_part(viewer):
    """One participant from consent to completion; returns (participant, its completion code or why not)."""
    subject, expression = viewer
    participant = f"{subject}-{expression}"
    frame = open(os.path.join(args.faces, "png", f"{subject}.{expression}.png"), "rb").read()
    status, data = http("POST", f"/studies/{STUDY}/sessions",
                        json.dumps({"agreed": True, "participant": participant}).encode())
    if status != 201:
        return participant, f"consent: {status} {data[:100]}"
    token = json.loads(data)["token"]
    live = f"{args.base.replace('http', 'ws')}/studies/{STUDY}/live?session={token}"
    if not pass_framing(live, frame):
        return participant, "the framing check did not pass"
    with connect(f"{live}&stimulus={STIMULUS}", max_size=None, open_timeout=30) as ws:
        while (message := json.loads(ws.recv(timeout=120)))["type"] != "ready":
            if message["type"] == "error":
                return participant, f"stimulus: {message}"
        began = time.monotonic()
        for index in range(30):  # 3 s at 10 frames a second, on stimulus time, in real time
            time.sleep(max(0, began + index / 10 - time.monotonic()))
            ws.send(struct.pack("<d", index * 100.0) + frame)
        time.sleep(max(0, began + 3.05 - time.monotonic()))
        ws.send(json.dumps({"type": "end"}))
        ended = None
        try:
            while True:
                message = json.loads(ws.recv(timeout=60))
                if message["type"] == "ended":
                    ended = message
        except ConnectionClosed:
            pass
    if not ended or not ended.get("enough"):
        return participant, f"the stimulus was not measured enough: {ended}"
    liking = LIKING[viewer]
    pages = [{"liking": liking, "intent": min(10, max(0, liking + 2 - (liking < 4) * 2))},
             {"seen": "No", "where": None, "comments": None}]
    for page in pages:
        status, data = http("POST", f"/studies/{STUDY}/answers", json.dumps({"answers": page}).encode(), token=token)
        if status != 200:
            return participant, f"answers: {status} {data[:160]}"
    status, data = http("POST", f"/studies/{STUDY}/complete", token=token)
    return participant, json.loads(data).get("code") if status == 200 else f"complete: {status} {data[:160]}"


started = time.monotonic()
with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
    outcomes = dict(pool.map(take_part, VIEWERS))
for participant, outcome in outcomes.items():
    check(isinstance(outcome, str) and len(outcome) == 8 and outcome.isalnum(), f"{participant}: {outcome}")
print(f"  24 participants (4 at a time) in {time.monotonic() - started:.1f} s")

result = os.path.join(args.out, "results", STUDY)
run = subprocess.run([args.mien, "study", os.path.join(args.studies, STUDY), "--output", result],
                     capture_output=True, text=True)
if check(run.returncode == 0, f"mien study trial: {run.returncode} {run.stderr[-300:]}"):
    with open(os.path.join(result, "prediction.csv")) as file:
        predicted = {row["question"]: row for row in csv.DictReader(file)}
    liking = predicted.get("liking", {})
    auc = float(liking.get("auc") or 0)
    # Everyone with a feature: 23 of the 24 (issue 95: a face's first second is settling, left out; the one left,
    # subject05's sad picture, reads as eyes shut past a blink on every later frame, so never as watching).
    with open(os.path.join(result, "features.csv")) as file:
        featured = {row["participant"] for row in csv.DictReader(file)}
    check(liking.get("n") == str(len(featured)) and len(featured) >= 23 and auc >= 0.75 and liking.get("passes") == "1",
          f"the faces predict liking: {liking} ({len(featured)} with features)")
    with open(os.path.join(result, "relations.csv")) as file:
        related = [row for row in csv.DictReader(file) if row["question"] == "liking" and row["passes"] == "1"]
    smiles = [row for row in related if row["metric"] in ("expressions.smile", "emotions.joy")]
    check(smiles and all(float(row["rho"]) > 0 for row in smiles), f"smile or joy features go with liking: {related}")
    # Issue 95 item 1: these cameras are still pictures, so over time nothing happens (checks.nothing_happened).
    print(f"  still faces: {nothing_happened(result)}")
    page = open(os.path.join(result, "study.html")).read()
    check("The faces predict whether a viewer answers above the middle: cross-validated AUC" in page,
          "study.html's summary says the faces predict liking, with the AUC")
    for question, row in predicted.items():
        print(f"  {question}: n {row['n']} ({row['positives']} above the middle), cross-validated AUC {row['auc']} "
              f"[{row['low']}, {row['high']}], permutation p {row['p']} ({row['features']} features)")
    print(f"  liking: {len(related)} features pass after FDR, e.g. "
          + "; ".join(f"{row['metric']} {row['feature']} rho {row['rho']} q {row['q']}" for row in related[:4]))
verdict(" part 1b (the trial)")
print(f"study-check part 1b: the trial passed ({time.monotonic() - started:.0f} s)")
