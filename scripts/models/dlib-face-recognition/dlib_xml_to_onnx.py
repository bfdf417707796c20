"""dlib's face recognition ResNet (dlib_face_recognition_resnet_model_v1.dat, written out by dlib's own
net_to_xml) as an ONNX graph: input [1, 3, 150, 150], RGB planes of pixels 0..255; output [1, 128], the face
descriptor.

dlib's input layer (input_rgb_image_sized<150>) feeds the network (pixel - channel mean) / 256; that step is
the graph's first two nodes, so that Mien warps a chip straight into the input tensor as it does for its
other networks, and the model carries its own normalisation.

dlib semantics kept: convolutions with dlib's padding (none when strided); affine layers as per-channel
scale and shift; add_prev of tensors of different sizes adds them zero-padded to the larger (the shortcut
gets zero channels, the strided branch a zero row and column); avg_pool_everything over that padded map.
"""
import re
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def convert(xml_path, onnx_path):
    raw = []
    current = None
    values = []
    with open(xml_path) as f:
        for line in f:
            if line.startswith("<layer"):
                if current is not None:
                    current["values"] = np.array(values, dtype=np.float64)
                    raw.append(current)
                m = re.match(r"<layer idx='(\d+)' type='(\w+)'(?: id='(\d+)')?", line)
                current = {"idx": int(m.group(1)), "type": m.group(2), "id": m.group(3), "tag": None, "attrs": {}}
                values = []
            elif line.startswith("</net"):
                break
            elif line.startswith("<") and not line.startswith("</"):
                if current is not None and current["tag"] is None:
                    current["tag"] = re.match(r"<(\w+)", line).group(1)
                    current["attrs"] = dict(re.findall(r"(\w+)='([^']*)'", line))
            elif not line.startswith("<"):
                values.extend(float(v) for v in line.split())
    current["values"] = np.array(values, dtype=np.float64)
    raw.append(current)
    layers = sorted(raw, key=lambda l: -l["idx"])  # input first

    nodes, inits = [], []
    counter = [0]

    def name(prefix):
        counter[0] += 1
        return f"{prefix}_{counter[0]}"

    def const(array, prefix):
        n = name(prefix)
        inits.append(numpy_helper.from_array(np.asarray(array, dtype=np.float32), n))
        return n

    x = "input"
    shape = None  # (channels, rows, cols)
    tags = {}
    for layer in layers:
        t, tag, a, v = layer["type"], layer["tag"], layer["attrs"], layer["values"]
        if t == "input":
            shape = (3, int(a["nr"]), int(a["nc"]))
            means = [float(a[key]) for key in ("r", "g", "b")]
            centred = name("centred")
            nodes.append(helper.make_node("Sub", [x, const(np.array(means).reshape(1, 3, 1, 1), "mean")], [centred]))
            x = name("normalised")
            nodes.append(helper.make_node("Mul", [centred, const(np.array([1 / 256.0]), "scale")], [x]))
            continue
        if t == "tag":
            tags[layer["id"]] = (x, shape)
            continue
        if t == "skip":
            x, shape = tags[layer["id"]]
            continue
        if t == "loss":
            continue
        if tag == "con":
            k, (c, r, col) = int(a["num_filters"]), shape
            nr, nc = int(a["nr"]), int(a["nc"])
            sy, sx, py, px = (int(a[key]) for key in ("stride_y", "stride_x", "padding_y", "padding_x"))
            weights = v[: k * c * nr * nc].reshape(k, c, nr, nc)
            bias = v[k * c * nr * nc :]
            assert bias.size == k, (layer["idx"], bias.size, k)
            out = name("conv")
            nodes.append(helper.make_node(
                "Conv", [x, const(weights, "w"), const(bias, "b")], [out], kernel_shape=[nr, nc],
                strides=[sy, sx], pads=[py, px, py, px]))
            x, shape = out, (k, 1 + (r + 2 * py - nr) // sy, 1 + (col + 2 * px - nc) // sx)
        elif tag == "affine_con":
            c = shape[0]
            assert v.size == 2 * c, (layer["idx"], v.size, c)
            gamma, beta = v[:c], v[c:]
            scaled = name("scale")
            nodes.append(helper.make_node("Mul", [x, const(gamma.reshape(1, c, 1, 1), "gamma")], [scaled]))
            out = name("affine")
            nodes.append(helper.make_node("Add", [scaled, const(beta.reshape(1, c, 1, 1), "beta")], [out]))
            x = out
        elif tag == "relu":
            out = name("relu")
            nodes.append(helper.make_node("Relu", [x], [out]))
            x = out
        elif tag in ("max_pool", "avg_pool"):
            nr, nc = int(a["nr"]), int(a["nc"])
            out = name(tag)
            if nr == 0 and nc == 0:
                nodes.append(helper.make_node("GlobalAveragePool", [x], [out]))
                x, shape = out, (shape[0], 1, 1)
                continue
            sy, sx, py, px = (int(a[key]) for key in ("stride_y", "stride_x", "padding_y", "padding_x"))
            assert py == 0 and px == 0
            op = "MaxPool" if tag == "max_pool" else "AveragePool"
            nodes.append(helper.make_node(op, [x], [out], kernel_shape=[nr, nc], strides=[sy, sx]))
            x, shape = out, (shape[0], 1 + (shape[1] - nr) // sy, 1 + (shape[2] - nc) // sx)
        elif tag == "add_prev":
            other, other_shape = tags[a["tag"]]
            target = tuple(max(p, q) for p, q in zip(shape, other_shape))

            def padded(name_, s):
                if s == target:
                    return name_
                pads = [0, 0, 0, 0, 0, target[0] - s[0], target[1] - s[1], target[2] - s[2]]
                out_ = name("pad")
                nodes.append(helper.make_node("Pad", [name_, const_int(pads)], [out_], mode="constant"))
                return out_

            def const_int(array):
                n = name("pads")
                inits.append(numpy_helper.from_array(np.asarray(array, dtype=np.int64), n))
                return n

            out = name("add")
            nodes.append(helper.make_node("Add", [padded(x, shape), padded(other, other_shape)], [out]))
            x, shape = out, target
        elif tag == "fc_no_bias":
            outputs = int(a["num_outputs"])
            inputs = shape[0] * shape[1] * shape[2]
            weights = v.reshape(inputs, outputs)
            flat = name("flat")
            nodes.append(helper.make_node("Flatten", [x], [flat], axis=1))
            out = "descriptor"
            nodes.append(helper.make_node("MatMul", [flat, const(weights, "fc")], [out]))
            x, shape = out, (outputs,)
        else:
            raise SystemExit(f"layer {layer['idx']}: {tag} is not handled")
    graph = helper.make_graph(
        nodes, "dlib_face_recognition_resnet_model_v1",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, 150, 150])],
        [helper.make_tensor_value_info("descriptor", TensorProto.FLOAT, [1, 128])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="mien")
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, onnx_path)


if __name__ == "__main__":
    convert(sys.argv[1], sys.argv[2])
