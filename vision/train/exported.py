"""A network's trainable weights, recovered from its ONNX export (the file that ships).

The export folds each batch norm into the convolution before it (the convolution gains a bias),
so the `.pt` a training run left behind is the only exact copy of the weights, and it does not
ship. To fine-tune a shipped network, each convolution takes its folded weights, and its batch
norm is set to give back the folded bias whatever statistics it holds: its running statistics
are those of the convolution's outputs on real inputs, its scale their spread and its shift the
bias plus their mean. The network then runs exactly as the export in eval mode, and about as
it in train mode, where a batch norm normalises by the batch's own statistics. The export names
each convolution's node by its module's path (`/s4/s4.0/s4.0.0/Conv`: module `s4.0.0`), which
is how its weights find their module.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import numpy as np
import onnx
import torch
from onnx import numpy_helper
from torch import nn

from vision.train.nets import DetectorNet, ReaderNet

Net = TypeVar("Net", bound=nn.Module)


def _module_of(node: onnx.NodeProto) -> str:
    """The path of the module a Conv node was exported from ("/a/a.0/a.0.0/Conv" -> "a.0.0")."""
    parts = node.name.strip("/").split("/")
    if len(parts) < 2 or parts[-1] != "Conv":
        raise ValueError(f"a convolution node named {node.name!r}: not a module's path")
    return parts[-2]


def load_export(model: Net, path: Path, inputs: torch.Tensor) -> Net:
    """`model` given the weights of its export at `path` (its .onnx), with its batch norms
    fitted on `inputs` (a few thousand, normalised as the network takes them)."""
    graph = onnx.load(str(path)).graph
    init = {i.name: torch.from_numpy(numpy_helper.to_array(i).copy()) for i in graph.initializer}
    modules = dict(model.named_modules())
    pairs: list[tuple[nn.Conv2d, nn.BatchNorm2d]] = []
    with torch.no_grad():
        for node in (n for n in graph.node if n.op_type == "Conv"):
            name = _module_of(node)
            conv = modules.get(name)
            if not isinstance(conv, nn.Conv2d):
                raise ValueError(f"{path}: a convolution {name!r} the network does not have")
            w, b = init[node.input[1]], init[node.input[2]]
            if conv.weight.shape != w.shape:
                raise ValueError(f"{path}: {name} is {tuple(w.shape)}, the network's is "
                                 f"{tuple(conv.weight.shape)}")
            conv.weight.copy_(w)
            parent, _, index = name.rpartition(".")
            norm = modules.get(f"{parent}.{int(index) + 1}") if index.isdigit() else None
            if isinstance(norm, nn.BatchNorm2d):
                norm.running_mean.zero_()
                norm.running_var.fill_(1.0 - norm.eps)
                norm.weight.fill_(1.0)
                norm.bias.copy_(b)
                pairs.append((conv, norm))
            elif conv.bias is not None:
                conv.bias.copy_(b)
        rest = {k: v for k, v in init.items() if not k.startswith("onnx::")}
        model.load_state_dict(rest, strict=False)
        _fit_norms(model, pairs, inputs)
    return model


def reader_from_export(path: Path, crops: torch.Tensor) -> ReaderNet:
    """The reader exported at `path`, with batch norms fitted on `crops`."""
    graph = onnx.load(str(path)).graph
    head = next(i for i in graph.initializer if i.name == "head.weight")
    return load_export(ReaderNet(int(head.dims[0])), path, crops)


def detector_from_export(path: Path, frames: torch.Tensor) -> DetectorNet:
    """The detector exported at `path`, with batch norms fitted on `frames`."""
    return load_export(DetectorNet(), path, frames)


def _fit_norms(model: nn.Module, pairs: list[tuple[nn.Conv2d, nn.BatchNorm2d]],
               inputs: torch.Tensor) -> None:
    """Each batch norm's statistics from its convolution's outputs on `inputs`, its scale and
    shift set so that eval mode runs as before."""
    seen: dict[int, tuple[torch.Tensor, torch.Tensor]] = {}

    def keep(k: int) -> Callable[[nn.Module, tuple, torch.Tensor], None]:
        def hook(_m: nn.Module, _i: tuple, out: torch.Tensor) -> None:
            seen[k] = (out.mean(dim=(0, 2, 3)), out.var(dim=(0, 2, 3)))
        return hook

    hooks = [conv.register_forward_hook(keep(k)) for k, (conv, _) in enumerate(pairs)]
    model.eval()
    model(inputs)
    for h in hooks:
        h.remove()
    for k, (_, norm) in enumerate(pairs):
        mean, var = seen[k]
        bias = norm.bias.clone()
        norm.running_mean.copy_(mean)
        norm.running_var.copy_(var)
        norm.weight.copy_(torch.sqrt(var + norm.eps))
        norm.bias.copy_(bias + mean)


def check_same(model: nn.Module, path: Path, inputs: np.ndarray) -> float:
    """The largest difference between the first output of `model` (eval mode) and of the export
    at `path` on `inputs` (normalised NCHW float32): a recovered network must run as the
    export."""
    import onnxruntime as ort

    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    feed = session.get_inputs()[0]
    step = feed.shape[0] if isinstance(feed.shape[0], int) else len(inputs)  # a fixed batch
    want = np.concatenate([session.run(None, {feed.name: inputs[i:i + step]})[0]
                           for i in range(0, len(inputs), step)])
    model.eval()
    with torch.no_grad():
        out = model(torch.from_numpy(inputs))
    got = (out[0] if isinstance(out, tuple) else out).numpy()
    return float(np.abs(got - want).max())


def _checked(model: nn.Module, path: Path, inputs: torch.Tensor, out: Path) -> Path:
    """`model`, recovered from `path`, saved at `out` once checked to run as the export."""
    diff = check_same(model, path, inputs[:512].numpy())
    if diff > 1e-3:
        raise SystemExit(f"train: the weights recovered from {path} give other outputs than it "
                         f"(by up to {diff:.4f})")
    out.parent.mkdir(parents=True, exist_ok=True)
    torch.save(model.state_dict(), out)
    print(f"train: the weights recovered from {path} (outputs within {diff:.1e})",
          file=sys.stderr)
    return out


def start_weights(path: Path, crops_from: Path, work: Path) -> Path:
    """A reader.pt to fine-tune from: `path` itself, or the weights recovered from the ONNX
    export at `path` (batch norms fitted on the first crops of the set `crops_from`), checked to
    read as the export does and saved into `work`."""
    if path.suffix != ".onnx":
        return path
    from vision.train.reader import as_input

    with np.load(min(crops_from.glob("reader-*.npz"))) as z:
        crops = as_input(torch.from_numpy(z["crops"][:4096]))
    return _checked(reader_from_export(path, crops), path, crops,
                    work / "reader-from-export.pt")


def detector_start_weights(path: Path, frames_from: Path, work: Path) -> Path:
    """A detector.pt to fine-tune from: `path` itself, or the weights recovered from the ONNX
    export at `path` (such as the shipped vision/models/detector.onnx; batch norms fitted on the
    first frames of the set `frames_from`), checked and saved into `work`."""
    if path.suffix != ".onnx":
        return path
    from vision.train.data import detector_shards
    from vision.train.detector import as_input

    frames = as_input(next(detector_shards(frames_from))[0][:512])
    return _checked(detector_from_export(path, frames), path, frames,
                    work / "detector-from-export.pt")
