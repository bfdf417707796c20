"""Checks the converted network against dlib's own descriptors (reference.bin from dump_dlib_net): the
same four chips, given as RGB planes of pixels 0..255 (the graph does dlib's (pixel - channel mean) / 256
itself), must give the same 128 numbers. Exits 1 when the largest difference exceeds --tolerance."""
import argparse
import sys

import numpy as np
import onnxruntime as ort

parser = argparse.ArgumentParser()
parser.add_argument("onnx")
parser.add_argument("reference")
parser.add_argument("--tolerance", type=float, default=1e-5)
args = parser.parse_args()
data = np.fromfile(args.reference, dtype=np.uint8)
per = 150 * 150 * 3 + 128 * 4
session = ort.InferenceSession(args.onnx)
worst = 0.0
for n in range(len(data) // per):
    block = data[n * per:(n + 1) * per]
    pixels = block[:150 * 150 * 3].reshape(150, 150, 3).astype(np.float32)
    expected = block[150 * 150 * 3:].view(np.float32)
    got = session.run(None, {"input": pixels.transpose(2, 0, 1)[None]})[0][0]
    worst = max(worst, float(np.abs(got - expected).max()))
print(f"largest difference from dlib over {len(data) // per} chips: {worst:.3g} (tolerance {args.tolerance:g})")
sys.exit(0 if worst <= args.tolerance else 1)
