"""Training the card detector and the card reader (needs the `train` extra: PyTorch, Pillow).

`python -m vision.train` renders the training data from random designs, typefaces and tables
(`scenes`, `data`), trains both networks (`detector`, `reader`), calibrates them on designs they
never saw (`calib` fonts) and exports them as ONNX into vision/models/. The product only needs the
exported files (run by onnxruntime); see docs/training.md.
"""
