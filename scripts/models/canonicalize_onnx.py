"""Make a tf2onnx conversion byte-for-byte reproducible.

tf2onnx names constants and intermediate tensors with process-wide counters (``pad_const__135`` in one
run, ``pad_const__160`` in the next) and writes the converting machine's paths into doc strings, so two
conversions of the same file never hash alike. This rewrites every name that is not a graph input or
output from the node order, fixes symbolic batch dimensions to 1, clears doc strings, optionally renames
outputs, and stores the result, so
that the SHA-256 in Models/MANIFEST.json identifies the model, not the run that converted it.

usage: canonicalize_onnx.py IN.onnx OUT.onnx [--rename-output OLD=NEW ...] [--source TEXT]
"""
import sys

import onnx


def main(argv):
    src, dst, rest = argv[1], argv[2], argv[3:]
    renames, source = {}, ""
    i = 0
    while i < len(rest):
        if rest[i] == "--rename-output":
            old, new = rest[i + 1].split("=", 1)
            renames[old] = new
            i += 2
        elif rest[i] == "--source":
            source = rest[i + 1]
            i += 2
        else:
            raise SystemExit(f"unknown argument {rest[i]}")

    model = onnx.load(src)
    graph = model.graph
    keep = {v.name for v in graph.input}
    mapping = {name: name for name in keep}
    for out in graph.output:
        mapping[out.name] = renames.get(out.name, out.name)
    initializers = {t.name for t in graph.initializer}

    counter = {"w": 0, "t": 0}

    def fresh(kind):
        counter[kind] += 1
        return f"{kind}{counter[kind]}"

    for index, node in enumerate(graph.node):
        for name in node.input:
            if name and name not in mapping:
                mapping[name] = fresh("w" if name in initializers else "t")
        for name in node.output:
            if name and name not in mapping:
                mapping[name] = fresh("t")
        node.name = f"n{index}_{node.op_type}"
        node.doc_string = ""
        node.input[:] = [mapping.get(n, n) if n else n for n in node.input]
        node.output[:] = [mapping.get(n, n) if n else n for n in node.output]

    for tensor in graph.initializer:
        tensor.name = mapping.get(tensor.name, tensor.name)
        tensor.doc_string = ""
    ordered = sorted(graph.initializer, key=lambda t: int(t.name[1:]) if t.name[1:].isdigit() else 0)
    del graph.initializer[:]
    graph.initializer.extend(ordered)
    for info in list(graph.value_info):
        info.name = mapping.get(info.name, info.name)
    for out in graph.output:
        out.name = mapping[out.name]

    # tf2onnx names unknown dimensions from a counter too ("unk__2005"); Mien runs one face at a time,
    # so a symbolic batch dimension becomes 1 and any other symbolic dimension gets a stable name.
    symbolic = 0
    for value in list(graph.input) + list(graph.output) + list(graph.value_info):
        for position, dim in enumerate(value.type.tensor_type.shape.dim):
            if dim.HasField("dim_param"):
                if position == 0:
                    dim.dim_value = 1
                else:
                    symbolic += 1
                    dim.dim_param = f"dim{symbolic}"

    model.doc_string = ""
    graph.doc_string = f"converted from {source}" if source else ""
    onnx.checker.check_model(model)
    onnx.save(model, dst)


if __name__ == "__main__":
    main(sys.argv)
