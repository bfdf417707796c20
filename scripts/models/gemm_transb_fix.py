"""Work around OpenCV 4.6's Gemm bug (opencv/opencv#22096): with transB=0 and a constant B, 4.6 reads B
transposed. Store every constant B transposed and set transB=1, which computes the same product.

usage: python gemm_transb_fix.py IN.onnx OUT.onnx
"""
import sys

import onnx
from onnx import helper, numpy_helper

model = onnx.load(sys.argv[1])
graph = model.graph
initializers = {i.name: i for i in graph.initializer}
fixed = 0
for node in graph.node:
    if node.op_type != "Gemm" or node.input[1] not in initializers:
        continue
    attributes = {a.name: a for a in node.attribute}
    if "transB" in attributes and attributes["transB"].i == 1:
        continue
    weights = numpy_helper.to_array(initializers[node.input[1]])
    transposed = numpy_helper.from_array(weights.T.copy(), node.input[1] + "_T")
    graph.initializer.append(transposed)
    node.input[1] = transposed.name
    if "transB" in attributes:
        attributes["transB"].i = 1
    else:
        node.attribute.append(helper.make_attribute("transB", 1))
    fixed += 1
onnx.checker.check_model(model)
onnx.save(model, sys.argv[2])
print(f"gemm_transb_fix: {fixed} Gemm node(s) rewritten")
