"""Run a bundled network (ONNX) on the CPU, with the numbers it was calibrated with.

Each network is two files in vision/models/: `<name>.onnx` and `<name>.json` (its input, its
calibration, how it was trained). onnxruntime runs them on one thread: a Pi has four cores and
the camera, the web server and the referee share them; one thread per frame is what the speed
figures in docs/PERFORMANCE.md assume.
"""

from __future__ import annotations

import functools
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

MODEL_DIR = Path(__file__).resolve().parent / "models"
MAX_BATCH = 8
"""Inputs a network runs on at once. onnxruntime's memory arena keeps the largest batch's
activations for good (the reader: 32 inputs held 17 MB more than 8), and batches past 8 are no
faster (1.44 ms an input at 8, 1.56 at 32, one thread)."""


class ModelError(ValueError):
    """A model, deck or network file that cannot be used."""


@dataclass(frozen=True)
class Network:
    name: str
    session: Any              # onnxruntime.InferenceSession
    meta: dict[str, Any]
    digest: str = ""          # of its .onnx file: which weights a taught deck was fitted to

    def run(self, x: np.ndarray) -> list[np.ndarray]:
        """The network's outputs for one input batch (float32, as the network expects), run
        MAX_BATCH inputs at a time."""
        name = self.session.get_inputs()[0].name
        parts = [self.session.run(None, {name: x[i:i + MAX_BATCH]})
                 for i in range(0, max(len(x), 1), MAX_BATCH)]
        if len(parts) == 1:
            return parts[0]
        return [np.concatenate(outs) for outs in zip(*parts, strict=True)]


@functools.cache
def bundled(name: str) -> Network:
    """The bundled network `name` (loaded once)."""
    return load(MODEL_DIR / f"{name}.onnx")


def load(path: Path) -> Network:
    meta_path = path.with_suffix(".json")
    if not path.is_file() or not meta_path.is_file():
        raise ModelError(f"network {path.name} is missing from {path.parent} "
                         "(train it with `python -m vision.train`)")
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ModelError(f"{meta_path}: not readable ({exc})") from exc
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.log_severity_level = 3
    options.enable_mem_pattern = False  # a plan per batch size kept: more memory, no speed
    try:
        session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    except Exception as exc:  # onnxruntime raises its own types for damaged files
        raise ModelError(f"{path}: not a usable network ({exc})") from exc
    return Network(path.stem, session, meta, hashlib.sha256(path.read_bytes()).hexdigest()[:16])


def normalise(batch_u8: np.ndarray, mean: float, std: float) -> np.ndarray:
    """uint8 NHWC BGR images -> float32 NCHW, as the networks were trained."""
    x = batch_u8.astype(np.float32).transpose(0, 3, 1, 2)
    x *= 1.0 / (255.0 * std)
    x -= mean / std
    return x
