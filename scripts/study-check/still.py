"""Issue 95's null panel of still faces through the participant page in Chromium (study-check part 1, called by
check.py).

Each viewer's camera is a canvas stream drawing one still picture of the evaluation data, each its own person (the
Yale faces' `normal` pictures and Pointing'04's frontal ones), so over the stimulus nothing happens in any face. They
take part through the whole page (consent, the framing check, the stimulus, done), then `mien study` must say nothing
happened: no frame settling (the framing check learnt each face's rest, which the stimulus starts from), no response
or difference of the report's size (5 points), no significant ISC, every panel curve within 5 points of its first bin.
"""

import base64
import csv
import os
import subprocess

from checks import check, nothing_happened, take_part_with_camera

PICTURES = [f"yalefaces/png/subject{index:02d}.normal.png" for index in (1, 2, 3)] + [
    f"pointing04_headpose/Front/personne{index:02d}146+0+0.jpg" for index in (1, 2, 3)]


def camera(picture):
    """JavaScript giving the page's `getUserMedia` a 640x360 canvas stream at 15 fps of `picture` (bytes), centred
    at the canvas's height. Evaluates to true."""
    kind = "png" if picture[:4] == b"\x89PNG" else "jpeg"
    url = f"data:image/{kind};base64,{base64.b64encode(picture).decode()}"
    return """
(() => {
  if (!navigator.mediaDevices) Object.defineProperty(navigator, 'mediaDevices', { value: {}, configurable: true });
  navigator.mediaDevices.getUserMedia = async () => {
    const image = new Image();
    image.src = '%s';
    await image.decode();
    const canvas = document.createElement('canvas');
    canvas.width = 640; canvas.height = 360;
    const context = canvas.getContext('2d');
    const width = image.width * canvas.height / image.height;
    const draw = () => {
      context.fillStyle = '#808080';
      context.fillRect(0, 0, canvas.width, canvas.height);
      context.drawImage(image, (canvas.width - width) / 2, 0, width, canvas.height);
    };
    setInterval(draw, 1000 / 30);
    draw();
    return canvas.captureStream(15);
  };
  return true;
})()
""" % url


def take_part(browser, base, faces_root, agree, framing_then_watch, wait_done):
    """Each still face takes part in study `still`; returns their completions by participant (None: no data)."""
    if not os.path.isdir(faces_root):
        return None
    outcomes = {}
    for index, path in enumerate(PICTURES):
        with open(os.path.join(faces_root, path), "rb") as file:
            script = camera(file.read())
        outcomes[f"s{index + 1}"] = take_part_with_camera(
            browser, f"{base}/studies/still/?participant=s{index + 1}&redirect=0", script, agree, framing_then_watch,
            wait_done)
    return outcomes


def verify(studies, out, mien, outcomes):
    """`mien study` of the still panel says nothing happened; prints its figures."""
    if outcomes is None:
        return
    for participant, (code, _) in outcomes.items():
        check(code and len(code) == 8, f"still face {participant}: no completion code ({code})")
    result = os.path.join(out, "results", "still")
    # Bins of 0.25 s: 12 over the 3-s stimulus, so the ISC is computed (it needs 10).
    run = subprocess.run([mien, "study", os.path.join(studies, "still"), "--output", result, "--bin", "0.25"],
                         capture_output=True, text=True)
    if not check(run.returncode == 0, f"mien study still: {run.returncode} {run.stderr[-300:]}"):
        return
    with open(os.path.join(result, "participants.csv")) as file:
        included = [row["participant"] for row in csv.DictReader(file) if not row["exclusion"]]
    check(len(included) >= len(PICTURES) - 1, f"still faces included: {included}")
    print(f"  still faces in Chromium: {nothing_happened(result)}")
