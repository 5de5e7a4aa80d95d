"""A reader's trainable weights, recovered from its ONNX export (the file that ships).

The export folds each batch norm into the convolution before it (the convolution gains a bias),
so the `.pt` a training run left behind is the only exact copy of the weights, and it does not
ship. To fine-tune the shipped reader, each convolution takes its folded weights, and its batch
norm is set to give back the folded bias whatever statistics it holds: its running statistics
are those of the convolution's outputs on real crops, its scale their spread and its shift the
bias plus their mean. The network then reads exactly as the export in eval mode, and about as
it in train mode, where a batch norm normalises by the batch's own statistics.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import onnx
import torch
from onnx import numpy_helper
from torch import nn

from vision.train.nets import ReaderNet


def _convs_and_norms(model: ReaderNet) -> list[tuple[nn.Conv2d, nn.BatchNorm2d]]:
    """Each convolution with the batch norm after it, in the order the export runs them."""
    blocks = [*model.features, model.where]
    return [(b[0], b[1]) for b in blocks]


def reader_from_export(path: Path, crops: torch.Tensor) -> ReaderNet:
    """The reader exported at `path` (its .onnx), with batch norms fitted on `crops` (a few
    thousand, normalised as the network reads them)."""
    graph = onnx.load(str(path)).graph
    init = {i.name: torch.from_numpy(numpy_helper.to_array(i).copy()) for i in graph.initializer}
    convs = [(init[n.input[1]], init[n.input[2]]) for n in graph.node if n.op_type == "Conv"]
    n_classes = int(init["head.weight"].shape[0])
    model = ReaderNet(n_classes)
    pairs = _convs_and_norms(model)
    if len(pairs) != len(convs):
        raise ValueError(f"{path}: {len(convs)} convolutions, the reader has {len(pairs)}")
    with torch.no_grad():
        for (conv, norm), (w, b) in zip(pairs, convs, strict=True):
            if conv.weight.shape != w.shape:
                raise ValueError(f"{path}: a convolution of {tuple(w.shape)}, the reader's "
                                 f"is {tuple(conv.weight.shape)}")
            conv.weight.copy_(w)
            norm.running_mean.zero_()
            norm.running_var.fill_(1.0 - norm.eps)
            norm.weight.fill_(1.0)
            norm.bias.copy_(b)
        rest = {k: v for k, v in init.items() if not k.startswith("onnx::")}
        model.load_state_dict(rest, strict=False)
        _fit_norms(model, pairs, crops)
    return model


def _fit_norms(model: ReaderNet, pairs: list[tuple[nn.Conv2d, nn.BatchNorm2d]],
               crops: torch.Tensor) -> None:
    """Each batch norm's statistics from its convolution's outputs on `crops`, its scale and
    shift set so that eval mode reads as before."""
    seen: dict[int, tuple[torch.Tensor, torch.Tensor]] = {}

    def keep(k: int) -> Callable[[nn.Module, tuple, torch.Tensor], None]:
        def hook(_m: nn.Module, _i: tuple, out: torch.Tensor) -> None:
            seen[k] = (out.mean(dim=(0, 2, 3)), out.var(dim=(0, 2, 3)))
        return hook

    hooks = [conv.register_forward_hook(keep(k)) for k, (conv, _) in enumerate(pairs)]
    model.eval()
    model(crops)
    for h in hooks:
        h.remove()
    for k, (_, norm) in enumerate(pairs):
        mean, var = seen[k]
        bias = norm.bias.clone()
        norm.running_mean.copy_(mean)
        norm.running_var.copy_(var)
        norm.weight.copy_(torch.sqrt(var + norm.eps))
        norm.bias.copy_(bias + mean)


def check_same(model: ReaderNet, path: Path, crops: np.ndarray) -> float:
    """The largest difference of logits between `model` (eval mode) and the export at `path`
    on `crops` (normalised NCHW float32): a recovered reader must read as the export."""
    import onnxruntime as ort

    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    want = session.run(["logits"], {"crops": crops})[0]
    model.eval()
    with torch.no_grad():
        got = model(torch.from_numpy(crops))[0].numpy()
    return float(np.abs(got - want).max())


def start_weights(path: Path, crops_from: Path, work: Path) -> Path:
    """A reader.pt to fine-tune from: `path` itself, or the weights recovered from the ONNX
    export at `path` (batch norms fitted on the first crops of the set `crops_from`), checked to
    read as the export does and saved into `work`."""
    if path.suffix != ".onnx":
        return path
    from vision.train.reader import as_input

    with np.load(min(crops_from.glob("reader-*.npz"))) as z:
        crops = as_input(torch.from_numpy(z["crops"][:4096]))
    model = reader_from_export(path, crops)
    diff = check_same(model, path, crops[:512].numpy())
    if diff > 1e-3:
        raise SystemExit(f"train: the weights recovered from {path} read other logits than it "
                         f"(by up to {diff:.4f})")
    out = work / "reader-from-export.pt"
    work.mkdir(parents=True, exist_ok=True)
    torch.save(model.state_dict(), out)
    print(f"train: the reader's weights recovered from {path} (logits within {diff:.1e})",
          file=sys.stderr)
    return out
