"""The two networks, in PyTorch (training only; the product runs their ONNX export).

- `ReaderNet`: a READ_W x READ_H card crop -> 2 classes per card (upright, upside down) and "no
  card", plus the 128-d embedding the taught reader learns a user's deck on (vision.teach).
- `DetectorNet`: a frame shrunk to 384 px wide -> at every 4 px: how likely a card's centre lies
  there, its sub-cell offset, its size and the direction of its long axis (an oriented box per
  card, CenterNet-style: cards that touch or pile up still have centres apart).
"""

from __future__ import annotations

import contextlib
import functools

import torch
import torch.nn.functional as F  # noqa: N812 - PyTorch's convention
from torch import nn

EMBED = 128
MEAN, STD = 0.5, 0.25  # inputs are (x / 255 - MEAN) / STD, in the export too


def cbr(cin: int, cout: int, stride: int = 1, k: int = 3, dilation: int = 1) -> nn.Sequential:
    pad = dilation * (k // 2)
    return nn.Sequential(nn.Conv2d(cin, cout, k, stride, pad, dilation=dilation, bias=False),
                         nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class ReaderNet(nn.Module):
    """A crop -> (logits, embedding). The embedding reads the last feature map twice: where on
    the card each feature lies (a flattened 6 x 4 grid: which way up, a 6 or a 9 by its corner
    indices) and the strongest of each feature anywhere (a max over the grid: a numeral read
    wherever an unseen layout prints it)."""

    def __init__(self, n_classes: int, widths: tuple[int, ...] = (32, 48, 96, 128)) -> None:
        super().__init__()
        a, b, c, d = widths
        self.features = nn.Sequential(
            cbr(3, a, 2), cbr(a, a),       # 48 x 32
            cbr(a, b, 2), cbr(b, b),       # 24 x 16
            cbr(b, c, 2), cbr(c, c),       # 12 x 8
            cbr(c, d, 2), cbr(d, d),       # 6 x 4
        )
        self.where = cbr(d, 64, k=1)
        self.embed = nn.Sequential(nn.Dropout(0.2), nn.Linear(64 * 6 * 4 + d, EMBED),
                                   nn.BatchNorm1d(EMBED), nn.ReLU(inplace=True))
        self.head = nn.Linear(EMBED, n_classes)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        f = self.features(x)
        e = self.embed(torch.cat([self.where(f).flatten(1), f.amax(dim=(2, 3))], dim=1))
        return self.head(e), e


class DetectorNet(nn.Module):
    OUT = 7  # heat, offset x/y, log w, log h, cos 2a, sin 2a

    def __init__(self) -> None:
        super().__init__()
        self.s4 = nn.Sequential(cbr(3, 16, 2), cbr(16, 32, 2), cbr(32, 32))               # 1/4
        self.s8 = nn.Sequential(cbr(32, 48, 2), cbr(48, 48), cbr(48, 48))                 # 1/8
        self.s16 = nn.Sequential(cbr(48, 64, 2), cbr(64, 64), cbr(64, 64, dilation=2))    # 1/16
        self.s32 = nn.Sequential(cbr(64, 96, 2), cbr(96, 96), cbr(96, 96, dilation=2))    # 1/32
        self.l32, self.m16 = cbr(96, 64, k=1), cbr(64, 64)
        self.l16, self.m8 = cbr(64, 48, k=1), cbr(48, 48)
        self.l8, self.m4 = cbr(48, 32, k=1), cbr(32, 32)
        self.head = nn.Sequential(cbr(32, 32), nn.Conv2d(32, self.OUT, 1))
        with torch.no_grad():
            self.head[-1].bias.zero_()
            self.head[-1].bias[0] = -2.2  # a centre is rare: start from p = 0.1

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        a = self.s4(x)
        b = self.s8(a)
        c = self.s16(b)
        d = self.s32(c)
        c = self.m16(c + F.interpolate(self.l32(d), scale_factor=2.0, mode="nearest"))
        b = self.m8(b + F.interpolate(self.l16(c), scale_factor=2.0, mode="nearest"))
        a = self.m4(a + F.interpolate(self.l8(b), scale_factor=2.0, mode="nearest"))
        return self.head(a)


def low_precision() -> contextlib.AbstractContextManager:
    """bfloat16 autocast where the CPU computes it natively (AMX or AVX-512 BF16), as the
    shipped networks were trained; where it is emulated (an AVX2 core) it trained the reader ten
    times slower than float32 (docs/training.md)."""
    return torch.autocast("cpu", dtype=torch.bfloat16) if _native_bf16() else \
        contextlib.nullcontext()


@functools.cache
def _native_bf16() -> bool:
    """The CPU probed once, not at every batch."""
    return any(getattr(torch.cpu, probe, lambda: False)()
               for probe in ("_is_amx_tile_supported", "_is_avx512_bf16_supported"))


class OneCycle:
    """AdamW under a one-cycle learning rate (a tenth of the steps to warm up), stepped once a
    batch: what both networks train with."""

    def __init__(self, model: nn.Module, lr: float, weight_decay: float, steps: int) -> None:
        self.opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=weight_decay)
        self.sched = torch.optim.lr_scheduler.OneCycleLR(self.opt, max_lr=lr, total_steps=steps,
                                                         pct_start=0.1)

    def step(self, loss: torch.Tensor) -> None:
        self.opt.zero_grad(set_to_none=True)
        loss.backward()
        self.opt.step()
        self.sched.step()

