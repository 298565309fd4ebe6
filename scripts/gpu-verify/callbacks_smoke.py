#!/usr/bin/env python3
"""Runs the gpuwatch callbacks inside the real frameworks: a tiny PyTorch
Lightning fit (2 epochs with validation, then a test) and a tiny Hugging Face
Trainer run (2 epochs, evaluation each epoch). Run it under
annotation_sink.py to see what they send; --only picks one framework."""
import argparse
import os
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import gpuwatch  # noqa: E402

import torch  # noqa: E402
from torch import nn  # noqa: E402


def data(n=64):
    x = torch.randn(n, 8)
    return x, (x.sum(dim=1) > 0).long()


def lightning_run():
    from gpuwatch.lightning import GpuwatchCallback, _pl as pl

    class Tiny(pl.LightningModule):
        def __init__(self):
            super().__init__()
            self.net = nn.Linear(8, 2)

        def training_step(self, batch, batch_idx):
            loss = nn.functional.cross_entropy(self.net(batch[0]), batch[1])
            self.log("train_loss", loss)
            return loss

        def validation_step(self, batch, batch_idx):
            self.log("val/loss", nn.functional.cross_entropy(self.net(batch[0]), batch[1]))

        def test_step(self, batch, batch_idx):
            self.log("test_loss", nn.functional.cross_entropy(self.net(batch[0]), batch[1]))

        def configure_optimizers(self):
            return torch.optim.SGD(self.parameters(), lr=0.1)

    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(*data()), batch_size=16)
    gpuwatch.mark("lightning")
    trainer = pl.Trainer(max_epochs=2, logger=False, enable_checkpointing=False, enable_progress_bar=False,
                         callbacks=[GpuwatchCallback()])
    model = Tiny()
    trainer.fit(model, loader, loader)
    trainer.test(model, loader)


def huggingface_run():
    import transformers
    from gpuwatch.huggingface import GpuwatchCallback

    class Tiny(nn.Module):
        def __init__(self):
            super().__init__()
            self.net = nn.Linear(8, 2)

        def forward(self, x, labels=None):
            logits = self.net(x)
            return {"loss": nn.functional.cross_entropy(logits, labels), "logits": logits}

    x, y = data()
    rows = [{"x": x[i], "labels": y[i]} for i in range(len(y))]
    gpuwatch.mark("huggingface")
    with tempfile.TemporaryDirectory() as output_dir:
        args = transformers.TrainingArguments(
            output_dir=output_dir, num_train_epochs=2, per_device_train_batch_size=16,
            per_device_eval_batch_size=16, eval_strategy="epoch", logging_steps=2, save_strategy="no",
            report_to=[], disable_tqdm=True)
        trainer = transformers.Trainer(model=Tiny(), args=args, train_dataset=rows, eval_dataset=rows,
                                       callbacks=[GpuwatchCallback()])
        trainer.train()


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--only", choices=["lightning", "huggingface"])
    args = p.parse_args()
    if args.only != "huggingface":
        lightning_run()
    if args.only != "lightning":
        huggingface_run()


if __name__ == "__main__":
    main()
