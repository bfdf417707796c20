"""Rewrite an ONNX graph so that Debian's OpenCV 4.6 DNN imports and runs it unchanged in meaning.

OpenCV 4.6's ONNX importer has three gaps that MediaPipe's blendshape model hits:
1. Binary ops (Add/Sub/Mul/Div) broadcast between two computed tensors only in a few layouts. Every
   other broadcast is made explicit here with Expand (and Reshape around it) in the layouts the
   importer does support; a constant operand is materialised at the output shape instead.
2. Slice needs its sliced axes to be consecutive: constant Slices get their no-op axes (start 0, end
   past the dimension) removed, and a Slice that slices nothing becomes Identity.
3. A 3-D graph input is ambiguous when fed from a cv::Mat: it is made 4-D ([1, A, B] -> [1, 1, A, B])
   with a Reshape back to 3-D as the first node.
Unused initializers are dropped at the end. The rewritten model must match the original's outputs;
`build_models.py` checks the result against the model's golden vector where one is given.

usage: opencv46_compat.py IN.onnx OUT.onnx [--input-4d]
"""
import sys

import numpy as np
import onnx
from onnx import helper, numpy_helper, shape_inference

BINARY = ("Add", "Sub", "Mul", "Div")


class Rewriter:
    def __init__(self, model):
        self.model = shape_inference.infer_shapes(model)
        self.graph = self.model.graph
        values = list(self.graph.value_info) + list(self.graph.input) + list(self.graph.output)
        self.shapes = {v.name: [d.dim_value for d in v.type.tensor_type.shape.dim] for v in values}
        self.arrays = {t.name: numpy_helper.to_array(t) for t in self.graph.initializer}
        self.constants = set(self.arrays) | {o for n in self.graph.node if n.op_type == "Constant" for o in n.output}
        self.counter = 0
        self.emitted = []

    def name(self, tag):
        self.counter += 1
        return f"cv46_{tag}_{self.counter}"

    def constant(self, values, dtype=np.int64):
        tensor_name = self.name("const")
        self.graph.initializer.append(numpy_helper.from_array(np.array(values, dtype), tensor_name))
        return tensor_name

    def op(self, kind, inputs):
        output = self.name(kind.lower())
        self.emitted.append(helper.make_node(kind, inputs, [output], name=output))
        return output

    def expand(self, tensor, source, target):
        """An explicit broadcast of `tensor` (shape `source`) to `target`, in a layout 4.6 supports."""
        source = [1] * (len(target) - len(source)) + list(source)
        if len(source) != len(self.shapes[tensor]):
            tensor = self.op("Reshape", [tensor, self.constant(source)])
        axes = [i for i in range(len(target)) if source[i] != target[i]]
        if len(axes) == 2 and axes[1] == axes[0] + 1 == len(target) - 1:
            if len(target) == 4:
                return self.op("Expand", [tensor, self.constant(target)])
            lifted_source, lifted_target = [1] * (4 - len(target)) + source, [1] * (4 - len(target)) + list(target)
            lifted = self.op("Reshape", [tensor, self.constant(lifted_source)])
            expanded = self.op("Expand", [lifted, self.constant(lifted_target)])
            return self.op("Reshape", [expanded, self.constant(target)])
        if len(axes) == 1 and axes[0] <= 1:
            return self.op("Expand", [tensor, self.constant(target)])
        if len(axes) == 1 and axes[0] == len(target) - 1:
            last = target[-1]
            split = next((a for a in range(int(np.sqrt(last)), 1, -1) if last % a == 0), None)
            if split:
                rows = int(np.prod(target[:-1]))
                flat = self.op("Reshape", [tensor, self.constant([1, rows, 1, 1])])
                expanded = self.op("Expand", [flat, self.constant([1, rows, split, last // split])])
                return self.op("Reshape", [expanded, self.constant(target)])
        raise SystemExit(f"no OpenCV 4.6 layout for broadcast {source} -> {target}")

    def explicit_broadcasts(self):
        for node in list(self.graph.node):
            if node.op_type in BINARY:
                out_shape = self.shapes.get(node.output[0])
                if out_shape and all(d > 0 for d in out_shape):
                    inputs = list(node.input)
                    for k, tensor in enumerate(inputs):
                        shape = self.shapes.get(tensor)
                        if tensor in self.constants:
                            array = self.arrays.get(tensor)
                            if array is not None and array.size > 1 and list(array.shape) != out_shape:
                                full = self.name("full")
                                broadcast = np.ascontiguousarray(np.broadcast_to(array, out_shape)).astype(array.dtype)
                                self.graph.initializer.append(numpy_helper.from_array(broadcast, full))
                                inputs[k] = full
                        elif shape and shape != out_shape:
                            inputs[k] = self.expand(tensor, shape, out_shape)
                    del node.input[:]
                    node.input.extend(inputs)
            self.emitted.append(node)
        del self.graph.node[:]
        self.graph.node.extend(self.emitted)

    def consecutive_slices(self):
        for node in self.graph.node:
            if node.op_type != "Slice" or len(node.input) < 4 or (len(node.input) > 4 and node.input[4]):
                continue
            if any(i not in self.arrays for i in node.input[1:4]):
                continue
            starts, ends, axes = (self.arrays[i].astype(np.int64) for i in node.input[1:4])
            dims = self.shapes[node.input[0]]
            keep = [j for j in range(len(axes)) if not (starts[j] == 0 and ends[j] >= dims[axes[j]])]
            if len(keep) == len(axes):
                continue
            data = node.input[0]
            del node.input[:]
            if keep:
                node.input.extend([data] + [self.constant(a[keep]) for a in (starts, ends, axes)])
            else:
                node.op_type = "Identity"
                node.input.append(data)

    def four_dimensional_input(self):
        graph_input = self.graph.input[0]
        dims = [d.dim_value for d in graph_input.type.tensor_type.shape.dim]
        if len(dims) != 3:
            return
        inner = graph_input.name + "_3d"
        for node in self.graph.node:
            node.input[:] = [inner if x == graph_input.name else x for x in node.input]
        self.graph.node.insert(0, helper.make_node("Reshape", [graph_input.name, self.constant(dims)], [inner]))
        del graph_input.type.tensor_type.shape.dim[:]
        for d in [1, 1] + dims[1:]:
            graph_input.type.tensor_type.shape.dim.add().dim_value = d

    def prune(self):
        used = {i for n in self.graph.node for i in n.input}
        kept = [t for t in self.graph.initializer if t.name in used]
        del self.graph.initializer[:]
        self.graph.initializer.extend(kept)
        del self.graph.value_info[:]


def main(argv):
    rewriter = Rewriter(onnx.load(argv[1]))
    rewriter.explicit_broadcasts()
    rewriter.consecutive_slices()
    if "--input-4d" in argv:
        rewriter.four_dimensional_input()
    rewriter.prune()
    onnx.checker.check_model(rewriter.model)
    onnx.save(rewriter.model, argv[2])


if __name__ == "__main__":
    main(sys.argv)
