"""What train_cnn.py and train_leak.py share: torch (or a clear message), the
gpuwatch client from this repository's python/ folder, a small CNN, and a
training loop that runs for a wall-clock time with epochs of a fixed length.

Epoch lines look like "epoch 3 step 1200 loss 0.1234", for --annotate-regex.
"""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import gpuwatch  # noqa: E402  (needs the path above)

try:
    import torch
    import torch.utils.data  # noqa: F401  (the scripts use torch.utils.data.*)
    from torch import nn
except ImportError:
    sys.exit(f"{os.path.basename(sys.argv[0])}: needs PyTorch (pip install torch); it is not installed "
             f"in {sys.executable}")

IMAGE_SHAPE = (3, 64, 64)
CLASSES = 10


def positive_float(text):
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be positive, got {text}")
    return value


def positive_int(text):
    value = int(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be positive, got {text}")
    return value


def pick_device():
    # No cudnn.benchmark: its autotuning idles the GPU for seconds at the
    # start, which is not what the "fast" run is meant to show.
    if torch.cuda.is_available():
        return torch.device("cuda")
    print("no CUDA device: running on the CPU (a smoke test)", file=sys.stderr, flush=True)
    return torch.device("cpu")


def make_cnn(channels):
    """Four 3x3 conv layers, two poolings, a linear classifier."""
    c = channels
    return nn.Sequential(
        nn.Conv2d(IMAGE_SHAPE[0], c, 3, padding=1), nn.BatchNorm2d(c), nn.ReLU(inplace=True),
        nn.Conv2d(c, c, 3, padding=1), nn.BatchNorm2d(c), nn.ReLU(inplace=True),
        nn.MaxPool2d(2),
        nn.Conv2d(c, 2 * c, 3, padding=1), nn.BatchNorm2d(2 * c), nn.ReLU(inplace=True),
        nn.MaxPool2d(2),
        nn.Conv2d(2 * c, 2 * c, 3, padding=1), nn.BatchNorm2d(2 * c), nn.ReLU(inplace=True),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(),
        nn.Linear(2 * c, CLASSES),
    )


def synthetic_images(labels, device=None):
    """Noise images whose brightness depends on the label, so the loss falls."""
    images = torch.randn(labels.shape[0], *IMAGE_SHAPE, device=device)
    return images + 0.1 * labels.to(images.dtype).view(-1, 1, 1, 1)


class Trainer:
    """One optimizer step of a classifier per call."""

    def __init__(self, model, device):
        self.model = model.to(device)
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=0.01, momentum=0.9)
        self.loss_fn = nn.CrossEntropyLoss()
        gpuwatch.model(module=self.model)

    def step(self, images, labels):
        self.optimizer.zero_grad(set_to_none=True)
        loss = self.loss_fn(self.model(images), labels)
        loss.backward()
        self.optimizer.step()
        return loss


def train_for(seconds, epoch_seconds, train_step, end_of_epoch=None):
    """Calls train_step(step) -> loss tensor until `seconds` have passed,
    with a new epoch every `epoch_seconds`; annotates everything."""
    start = time.monotonic()
    epoch = step = 0
    epoch_start = start
    loss = None
    with gpuwatch.phase("train"):
        while True:
            now = time.monotonic()
            done = now - start >= seconds
            if epoch == 0 or done or now - epoch_start >= epoch_seconds:
                if epoch > 0:
                    loss_value = loss.item()
                    gpuwatch.log(loss=loss_value)
                    gpuwatch.log_torch_memory()
                    extra = end_of_epoch() if end_of_epoch else ""
                    print(f"epoch {epoch} step {step} loss {loss_value:.4f}{extra}", flush=True)
                if done:
                    return
                epoch += 1
                epoch_start = now
                gpuwatch.epoch(epoch)
            step += 1
            loss = train_step(step)
            gpuwatch.step(step)
            gpuwatch.log(loss=loss)  # the tensor: read (a GPU sync) only when sent, ~4 times a second
