"""``stoker.lightning.VideoDataModule`` under a real Lightning Trainer on the CPU: a tiny model fits for a few steps,
and a run resumed from a checkpoint trains on exactly the clips the uninterrupted run trained on."""
import pytest

pytest.importorskip("lightning", reason="PyTorch Lightning is not installed (pip install 'stoker[lightning]')")

import torch  # noqa: E402
from lightning.pytorch import LightningModule, Trainer  # noqa: E402
from lightning.pytorch.callbacks import ModelCheckpoint  # noqa: E402

from stoker.lightning import VideoDataModule  # noqa: E402
from stoker.torch import VideoLoader  # noqa: E402

OPTIONS = dict(frames=4, size=32, batch_size=2, seed=3)   # 8 videos: 4 batches an epoch
EPOCHS = 2


class TinyClassifier(LightningModule):
    """Mean colour of the clip → a linear layer; records every clip it trains and validates on."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.linear = torch.nn.Linear(3, 2)
        self.trained = []
        self.validated = []

    def forward(self, video):
        return self.linear(video.float().mean(dim=(1, 2, 3)) / 255)   # NTHWC

    def training_step(self, batch, batch_idx):
        self.trained.append((batch.epoch, list(zip(batch.paths, batch.start_seconds))))
        assert batch.live, "a batch in training must not have been released"
        return torch.nn.functional.cross_entropy(self(batch.video), batch.label)

    def validation_step(self, batch, batch_idx):
        self.validated.append(list(zip(batch.paths, batch.start_seconds)))

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.1)


def trainer(**kwargs):
    return Trainer(accelerator="cpu", devices=1, max_epochs=EPOCHS, logger=False, enable_progress_bar=False,
                   enable_model_summary=False, num_sanity_val_steps=0, **kwargs)


@pytest.fixture(scope="module")
def uninterrupted(dataset):
    model = TinyClassifier()
    trainer(enable_checkpointing=False).fit(model, datamodule=VideoDataModule(dataset, val=dataset, **OPTIONS))
    return model


def test_a_tiny_model_fits_on_every_clip_of_each_epoch_once(uninterrupted):
    assert [epoch for epoch, _ in uninterrupted.trained] == [0] * 4 + [1] * 4
    for epoch in range(EPOCHS):
        paths = [p for e, clips in uninterrupted.trained if e == epoch for p, _ in clips]
        assert len(paths) == len(set(paths)) == 8
    assert uninterrupted.trained[:4] != uninterrupted.trained[4:], "each epoch its own order"
    # Validation ran after each epoch, on the same clips each time.
    assert len(uninterrupted.validated) == 8 and uninterrupted.validated[:4] == uninterrupted.validated[4:]


@pytest.mark.parametrize("stop_after_steps", [6, 4], ids=["mid-epoch", "end-of-epoch"])
def test_a_run_resumed_from_a_checkpoint_trains_on_exactly_the_uninterrupted_runs_clips(
        uninterrupted, dataset, tmp_path, stop_after_steps, recwarn):
    first = TinyClassifier()
    checkpoints = ModelCheckpoint(dirpath=tmp_path, every_n_train_steps=stop_after_steps, save_top_k=-1)
    trainer(max_steps=stop_after_steps, callbacks=[checkpoints]).fit(
        first, datamodule=VideoDataModule(dataset, val=dataset, **OPTIONS))
    [checkpoint] = tmp_path.glob("*.ckpt")
    assert len(first.trained) == stop_after_steps

    resumed = TinyClassifier()
    trainer(enable_checkpointing=False).fit(resumed, datamodule=VideoDataModule(dataset, val=dataset, **OPTIONS),
                                           ckpt_path=checkpoint)
    assert first.trained + resumed.trained == uninterrupted.trained
    assert not [w for w in recwarn if "not resumable" in str(w.message)], "Lightning knows the loader resumes exactly"


def test_rank_and_world_size_are_the_trainers_and_hold_covers_lightnings_batch_ahead(dataset):
    with pytest.raises(ValueError, match="rank=1: VideoDataModule takes the rank and world size from the trainer"):
        VideoDataModule(dataset, rank=1)
    with pytest.raises(ValueError, match="hold=0: expected 1 or more"):
        VideoDataModule(dataset, hold=0)
    assert VideoDataModule(dataset)._options["hold"] == 1
    assert VideoDataModule(dataset, hold=3, frames=8)._options == {"hold": 3, "frames": 8}


def test_a_model_that_hides_the_modules_batch_hook_is_refused_before_training(dataset):
    class Hiding(TinyClassifier):
        def on_before_batch_transfer(self, batch, dataloader_idx):
            return batch

    with pytest.raises(ValueError, match="Hiding overrides on_before_batch_transfer"):
        trainer(enable_checkpointing=False).fit(Hiding(), datamodule=VideoDataModule(dataset, **OPTIONS))


class PixelRecorder(TinyClassifier):
    """Keeps a copy of every batch it trains and validates on, epoch 0's only."""

    def __init__(self):
        super().__init__()
        self.trained_pixels = []
        self.validated_pixels = []

    def training_step(self, batch, batch_idx):
        if batch.epoch == 0:
            self.trained_pixels.append(batch.video.clone())
        return super().training_step(batch, batch_idx)

    def validation_step(self, batch, batch_idx):
        if self.current_epoch == 0:
            self.validated_pixels.append(batch.video.clone())


def test_train_options_augment_training_only_and_validation_sees_the_plain_clips(dataset):
    model = PixelRecorder()
    module = VideoDataModule(dataset, val=dataset, train_options=dict(flip=True), **OPTIONS)
    trainer(enable_checkpointing=False).fit(model, datamodule=module)

    def epoch_zero(**more):
        with VideoLoader(dataset, **OPTIONS, **more) as loader:
            loader.set_epoch(0)
            return [batch.video.clone() for batch in loader]

    plain, flipped = epoch_zero(), epoch_zero(flip=True)
    assert len(model.validated_pixels) == len(model.trained_pixels) == len(plain) == 4
    assert all(torch.equal(a, b) for a, b in zip(model.validated_pixels, plain)), "validation is not augmented"
    assert all(torch.equal(a, b) for a, b in zip(model.trained_pixels, flipped)), "training gets train_options"
    assert any(not torch.equal(a, b) for a, b in zip(flipped, plain)), "some clip is mirrored"
    with pytest.raises(ValueError, match=r"rank=1 \(in val_options\)"):
        VideoDataModule(dataset, val_options=dict(rank=1))
    with pytest.raises(ValueError, match=r"hold=0 \(in train_options\)"):
        VideoDataModule(dataset, train_options=dict(hold=0))
    with pytest.raises(TypeError, match=r"train_options=\['flip'\]: expected a dict of VideoLoader keyword arguments"):
        VideoDataModule(dataset, train_options=["flip"])


class ViewAverager(TinyClassifier):
    """Groups each video's predictions by its path, as multi-view testing averages them, keeping every clip."""

    def __init__(self):
        super().__init__()
        self.tested = []
        self.views = {}

    def test_step(self, batch, batch_idx):
        for path, start, video, logits in zip(batch.paths, batch.start_seconds, batch.video, self(batch.video)):
            self.tested.append((path, start, video.clone()))
            self.views.setdefault(path, []).append(logits.softmax(0))


def test_test_options_give_trainer_test_each_uniform_clips_three_spatial_crops(dataset):
    views = dict(clip_starts="uniform", clips_per_video=2, short_side=48)
    model = ViewAverager()
    module = VideoDataModule(dataset, test=dataset, test_options=dict(views, spatial_crops=3), **OPTIONS)
    trainer(enable_checkpointing=False).test(model, datamodule=module)
    with VideoLoader(dataset, **OPTIONS, **views) as loader:
        loader.set_epoch(0)
        plain = [(p, s, v.clone()) for batch in loader for p, s, v in zip(batch.paths, batch.start_seconds, batch.video)]
    assert len(plain) == 16 and len(model.tested) == 3 * len(plain)
    for i, (path, start, centre) in enumerate(plain):
        crops = model.tested[3 * i:3 * i + 3]
        assert [(p, s) for p, s, _ in crops] == [(path, start)] * 3
        assert torch.equal(crops[1][2], centre), f"{path}@{start}: the middle view is the plain centre crop"
    assert sorted(len(v) for v in model.views.values()) == [6] * 8, "2 clips x 3 crops of each of the 8 videos"
    with pytest.raises(TypeError, match=r"test_options=3: expected a dict of VideoLoader keyword arguments"):
        VideoDataModule(dataset, test_options=3)
