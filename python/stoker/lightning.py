"""PyTorch Lightning: ``stoker.lightning.VideoDataModule``, Stoker's loaders as a ``LightningDataModule``.

    dm = VideoDataModule("data/train", val="data/val", batch_size=8, frames=16, layout="NCTHW",
                         train_options=dict(crop="random", short_side_max=160, flip=True))   # augment training only
    trainer.fit(model, datamodule=dm)                # training_step(batch, i): batch.video, batch.label

    dm = VideoDataModule("data/train", test="data/test", batch_size=8, frames=16,   # 10 clips x 3 crops a video
                         test_options=dict(clip_starts="uniform", clips_per_video=10, short_side=128, spatial_crops=3))
    trainer.test(model, datamodule=dm)               # test_step(batch, i): average a video's views by batch.paths

Rank, world size and epoch come from the trainer. The loader's place is part of Lightning's checkpoints
(``state_dict``/``load_state_dict``): ``trainer.fit(..., ckpt_path=...)`` from a checkpoint saved mid-epoch
continues with exactly the clips the uninterrupted run would have trained on next.

Needs ``lightning`` (``pip install 'stoker[lightning]'``).
"""
from typing import Any, Dict, Iterator, List, Mapping, Optional

import torch

try:
    from lightning.pytorch import LightningDataModule
    from lightning.pytorch.utilities.model_helpers import is_overridden
except ImportError as e:   # the extra was not installed
    raise ImportError(f"stoker.lightning needs PyTorch Lightning: pip install 'stoker[lightning]' ({e})") from None

from ._batch import Batch
from .torch import VideoLoader

__all__ = ["VideoDataModule"]

# Lightning takes the next batch before the model trains on this one (its fetcher runs one ahead, to know which
# batch is the last), so a batch must outlive the taking of the next: at least one held besides the newest.
_LIGHTNING_PREFETCH = 1


class VideoDataModule(LightningDataModule):
    """Train, validation and test batches from Stoker's ``VideoLoader``, one per dataset: ``train``, ``val`` and
    ``test`` are what ``VideoLoader`` takes (a folder ``ROOT/<class>/<video>``, a CSV manifest, WebDataset ``.tar``
    shards, a shard folder,
    ``s3://…``), and every other keyword argument goes to each loader as given (``VideoLoader(dataset, **options)``).
    ``train_options``, ``val_options`` and ``test_options`` are keyword arguments for one loader only, laid over the
    shared ones: training augmentations (``crop="random"``, ``short_side_max``, ``flip``) belong in
    ``train_options``, so that validation sees the clips as they are; multi-view testing (``clip_starts="uniform"``,
    ``clips_per_video=10``, ``spatial_crops=3``) in ``test_options``.

    ``rank`` and ``world_size`` are the trainer's (``global_rank``, ``world_size``); each training epoch is the
    trainer's ``current_epoch`` (``set_epoch``); validation and test always run the same clips (their loader's epoch
    0). ``hold`` is at least 1 (see ``_LIGHTNING_PREFETCH``): Lightning fetches one batch ahead.
    """

    def __init__(self, train, val=None, test=None, *, train_options: Optional[Dict[str, Any]] = None,
                 val_options: Optional[Dict[str, Any]] = None, test_options: Optional[Dict[str, Any]] = None,
                 **options: Any):
        super().__init__()
        self._split_options = {}
        for split, given in (("train", train_options), ("val", val_options), ("test", test_options)):
            if given is not None and not isinstance(given, Mapping):
                raise TypeError(f"{split}_options={given!r}: expected a dict of VideoLoader keyword arguments")
            self._split_options[split] = dict(given or {})
        for split, given in (("", options), *((f"{s}_options", o) for s, o in self._split_options.items())):
            where = f" (in {split})" if split else ""
            for name in ("rank", "world_size"):
                if name in given:
                    raise ValueError(f"{name}={given[name]!r}{where}: VideoDataModule takes the rank and world size from "
                                     f"the trainer (global_rank, world_size); leave it out")
            hold = given.get("hold") if split else options.setdefault("hold", _LIGHTNING_PREFETCH)
            if isinstance(hold, int) and not isinstance(hold, bool) and hold < _LIGHTNING_PREFETCH:
                raise ValueError(f"hold={hold}{where}: expected {_LIGHTNING_PREFETCH} or more (Lightning takes the next "
                                 f"batch before training on this one, which would release this one's memory)")
        self._sources = {"train": train, "val": val, "test": test}
        self._options = options
        self._loaders: Dict[str, VideoLoader] = {}
        self._trained: Optional[dict] = None   # {"epoch", "batches", "state"} after the last batch trained on
        self._resume: Optional[dict] = None    # a state_dict() to continue from

    # ---- loaders -------------------------------------------------------------------------------------------------

    def _loader(self, split: str) -> VideoLoader:
        loader = self._loaders.get(split)
        if loader is None:
            loader = VideoLoader(self._sources[split], rank=self.trainer.global_rank,
                                 world_size=self.trainer.world_size,
                                 **{**self._options, **self._split_options[split]})
            self._loaders[split] = loader
        return loader

    def setup(self, stage: str) -> None:
        model = self.trainer.lightning_module
        if model is not None and is_overridden("on_before_batch_transfer", model):
            # Lightning then calls the model's hook instead of this module's, which counts the batches trained on.
            raise ValueError(f"{type(model).__name__} overrides on_before_batch_transfer, which hides "
                             f"VideoDataModule's (through which it knows the last batch trained on, for exact resume): "
                             f"do that work in on_after_batch_transfer instead")

    def train_dataloader(self) -> "_TrainBatches":
        return _TrainBatches(self, self._loader("train"))

    def val_dataloader(self) -> Any:
        return self._fixed("val")

    def test_dataloader(self) -> Any:
        return self._fixed("test")

    def _fixed(self, split: str) -> Any:
        if self._sources[split] is None:
            return []
        return _FixedBatches(self._loader(split))

    def teardown(self, stage: str) -> None:
        """Stops the loaders' JVMs (a later fit starts them again)."""
        for loader in self._loaders.values():
            loader.close()
        self._loaders.clear()

    # ---- where training stands ---------------------------------------------------------------------------------

    def on_before_batch_transfer(self, batch: Any, dataloader_idx: int) -> Any:
        # Called with each batch just before the step that uses it: the fetcher's batch ahead is not here yet.
        if self.trainer.training and isinstance(batch, Batch):
            done = self._trained
            batches = done["batches"] + 1 if done is not None and done["epoch"] == batch.epoch else 1
            self._trained = {"epoch": batch.epoch, "batches": batches, "state": {"stoker_state": dict(batch.state)}}
        return batch

    def _epoch_started(self, epoch: int, batches_done: int, state: Optional[dict]) -> None:
        self._trained = {"epoch": epoch, "batches": batches_done, "state": state} if batches_done else None

    def state_dict(self) -> Dict[str, Any]:
        """Where training stands: per rank, the epoch, the batches of it trained on, and the loader's state after
        the last of them (Lightning calls this on every rank as it saves a checkpoint; the checkpoint keeps one)."""
        mine = self._trained
        ranks: List[Optional[dict]] = [mine]
        dist = torch.distributed
        if self.trainer.world_size > 1 and dist.is_available() and dist.is_initialized():
            ranks = [None] * dist.get_world_size()
            dist.all_gather_object(ranks, mine)
        return {"ranks": ranks} if any(r is not None for r in ranks) else {}

    def load_state_dict(self, state_dict: Dict[str, Any]) -> None:
        ranks = state_dict.get("ranks") if isinstance(state_dict, dict) else None
        if not ranks:
            self._resume = None
            return
        trainer = self.trainer
        rank, world_size = (trainer.global_rank, trainer.world_size) if trainer is not None else (0, 1)
        if len(ranks) != world_size:
            raise ValueError(f"VideoDataModule.load_state_dict: the checkpoint holds {len(ranks)} ranks' loader states "
                             f"(expected: {world_size}, this run's world size)")
        self._resume = ranks[rank]


class _TrainBatches:
    """One training epoch of batches, the trainer's ``current_epoch``, or the rest of it after a resume."""

    def __init__(self, module: VideoDataModule, loader: VideoLoader):
        self._module = module
        self._loader = loader

    def __len__(self) -> int:
        return len(self._loader)

    # The place is VideoDataModule.state_dict's: Lightning asks a loader for its state with its batch ahead already
    # taken, one batch past the model's. These only tell Lightning that the loader resumes exactly (it warns that
    # a mid-epoch resume is unreliable otherwise).
    def state_dict(self) -> Dict[str, Any]:
        return {}

    def load_state_dict(self, state_dict: Dict[str, Any]) -> None:
        pass

    def __iter__(self) -> Iterator[Batch]:
        module, loader = self._module, self._loader
        epoch = module.trainer.current_epoch
        resume, module._resume = module._resume, None
        if resume is not None and resume["epoch"] == epoch and resume["batches"] < len(loader):
            loader.load_state_dict(resume["state"])
            module._epoch_started(epoch, resume["batches"], resume["state"])
        else:
            # A fresh epoch; also a checkpoint from an earlier epoch, or one that saw its epoch to the end.
            loader.set_epoch(epoch)
            module._epoch_started(epoch, 0, None)
        yield from loader


class _FixedBatches:
    """A validation or test set, the same clips each time (epoch 0 of its loader)."""

    def __init__(self, loader: VideoLoader):
        self._loader = loader

    def __len__(self) -> int:
        return len(self._loader)

    def __iter__(self) -> Iterator[Batch]:
        self._loader.set_epoch(0)
        yield from self._loader
