"""How bgref's vision networks are made: data drawn from the simulated table (and the
labelled photos where they may be used), training with PyTorch, export to ONNX for
``vision.nets``. Needs the ``train`` extra (``make models``); reading does not."""
