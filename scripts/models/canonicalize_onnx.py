"""Make a tf2onnx conversion byte-for-byte reproducible.

tf2onnx names constants and intermediate tensors with process-wide counters (``pad_const__135`` in one
run, ``pad_const__160`` in the next) and writes the converting machine's paths into doc strings, so two
conversions of the same file never hash alike. This rewrites every name that is not a graph input or
output from the node order, fixes symbolic batch dimensions to 1, clears doc strings, optionally renames
outputs, and stores the result, so
that the SHA-256 in Models/MANIFEST.json identifies the model, not the run that converted it.

usage: canonicalize_onnx.py IN.onnx OUT.onnx [--rename-output OLD=NEW ...] [--source TEXT] [--sort-nodes]

--sort-nodes also puts the nodes in a canonical topological order: tf2onnx's Keras path emits
independent branches (a residual 1x1 convolution and a separable convolution) in a different order from
run to run. Each node gets a structural hash (its op, attributes, and the hashes of what feeds it:
initializer contents, graph inputs or producing nodes), independent of every name; nodes are then
emitted by Kahn's algorithm, ready nodes taken in hash order.
"""
import hashlib
import sys

import onnx


def content_hash(tensor):
    """SHA-256 of an initializer without its name."""
    copy = onnx.TensorProto()
    copy.CopyFrom(tensor)
    copy.name = ""
    return hashlib.sha256(copy.SerializeToString(deterministic=True)).hexdigest()


def sort_nodes(graph):
    initializers = {t.name: content_hash(t) for t in graph.initializer}
    inputs = {v.name: "input:" + v.name for v in graph.input}
    producer = {}
    for node in graph.node:
        for out in node.output:
            producer[out] = node
    memo = {}

    def node_hash(node):
        key = id(node)
        if key in memo:
            return memo[key]
        parts = [node.op_type]
        for attribute in sorted(node.attribute, key=lambda a: a.name):
            copy = onnx.AttributeProto()
            copy.CopyFrom(attribute)
            parts.append(copy.SerializeToString(deterministic=True).hex())
        for name in node.input:
            if not name:
                parts.append("-")
            elif name in initializers:
                parts.append("w" + initializers[name])
            elif name in inputs:
                parts.append(inputs[name])
            else:
                source = producer[name]
                parts.append(node_hash(source) + ":" + str(list(source.output).index(name)))
        memo[key] = hashlib.sha256("|".join(parts).encode()).hexdigest()
        return memo[key]

    nodes = list(graph.node)
    hashes = {id(n): node_hash(n) for n in nodes}
    consumers = {id(n): [] for n in nodes}
    waiting = {}
    for node in nodes:
        feeds = {id(producer[i]) for i in node.input if i in producer}
        waiting[id(node)] = len(feeds)
        for feed in feeds:
            consumers[feed].append(node)
    ready = sorted([n for n in nodes if waiting[id(n)] == 0], key=lambda n: hashes[id(n)])
    ordered = []
    while ready:
        node = ready.pop(0)
        ordered.append(node)
        for consumer in consumers[id(node)]:
            waiting[id(consumer)] -= 1
            if waiting[id(consumer)] == 0:
                ready.append(consumer)
        ready.sort(key=lambda n: hashes[id(n)])
    if len(ordered) != len(nodes):
        raise SystemExit("graph has a cycle")
    copies = []
    for node in ordered:
        copy = onnx.NodeProto()
        copy.CopyFrom(node)
        copies.append(copy)
    del graph.node[:]
    graph.node.extend(copies)


def main(argv):
    src, dst, rest = argv[1], argv[2], argv[3:]
    renames, source, sort = {}, "", False
    i = 0
    while i < len(rest):
        if rest[i] == "--sort-nodes":
            sort = True
            i += 1
            continue
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
    if sort:
        sort_nodes(graph)
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
