"""What the training loop receives: the loader's own clips, byte for byte, in tensors over shared memory."""
import io
import subprocess

import numpy as np
import pytest
import torch
from PIL import Image

from stoker.torch import VideoLoader

BATCH = 3   # 8 videos: batches of 3, 3 and 2 (the last one short)


def take(loader, n=None):
    """(paths, labels, frame times, video bytes) of the next n batches (the rest of the epoch if None)."""
    out = []
    for batch in loader:
        out.append((list(batch.paths), batch.label.tolist(), batch.frame_seconds, batch.video.numpy().tobytes()))
        if n is not None and len(out) == n:
            break
    return out


def test_same_clips_in_the_same_batches_as_stoker_bench(dataset, stoker, tmp_path):
    clips_out = tmp_path / "clips.tsv"
    subprocess.run([stoker, "bench", str(dataset), "--batch", str(BATCH), "--seed", "7", "--batches", "3",
                    "--no-reference", "--clips-out", str(clips_out)], check=True, capture_output=True, timeout=300)
    expected = {}
    for line in clips_out.read_text().splitlines():
        batch, path, label, times = line.split("\t")
        expected.setdefault(int(batch), []).append((path, int(label), [round(float(t), 6) for t in times.split(",")]))
    with VideoLoader(dataset, batch_size=BATCH, seed=7) as loader:
        got = []
        for batch in loader:
            got.append([(p, l, [round(t, 6) for t in ts])
                        for p, l, ts in zip(batch.paths, batch.label.tolist(), batch.frame_seconds)])
    assert len(got) == 3 == len(expected)
    assert got == [expected[k] for k in sorted(expected)]


@pytest.mark.parametrize("kwargs, flags", [({"max_lead_frames": 0}, ["--max-lead-frames", "0"]),
                                           ({"workload": "spdl-example"}, ["--workload", "spdl-example"])])
def test_sampling_modes_give_the_clips_stoker_bench_gives(dataset, stoker, tmp_path, kwargs, flags):
    clips_out = tmp_path / "clips.tsv"
    subprocess.run([stoker, "bench", str(dataset), "--batch", str(BATCH), "--seed", "7", "--batches", "3",
                    "--no-reference", "--clips-out", str(clips_out)] + flags, check=True, capture_output=True, timeout=300)
    expected = [(path, [round(float(t), 6) for t in times.split(",")])
                for _, path, _, times in (line.split("\t") for line in clips_out.read_text().splitlines())]
    with VideoLoader(dataset, batch_size=BATCH, seed=7, **kwargs) as loader:
        got = []
        for batch in loader:
            got += [(p, [round(t, 6) for t in ts]) for p, ts in zip(batch.paths, batch.frame_seconds)]
            if "workload" in kwargs:
                assert tuple(batch.video.shape[1:]) == (16, 112, 112, 3)
    assert got == expected
    if "workload" in kwargs:   # the first half second's frames, the last repeated when fewer than 16
        assert all(ts[0] == 0 and ts[-1] < 0.5 and ts == sorted(ts) for _, ts in got)


def test_pixels_equal_stoker_clip_of_the_same_clip(dataset, stoker, tmp_path):
    with VideoLoader(dataset, batch_size=2, frames=4, stride=3, size=(96, 64), seed=1) as loader:
        batch = next(iter(loader))
        assert batch.video.shape == (2, 4, 64, 96, 3) and batch.video.dtype == torch.uint8
        video, path, start = batch.video[0].clone(), batch.paths[0], batch.start_seconds[0]
    out = tmp_path / "clip"
    subprocess.run([stoker, "clip", path, "--start", repr(start), "--frames", "4", "--stride", "3", "--size", "96x64",
                    "--out", str(out)], check=True, capture_output=True, timeout=120)
    frames = np.stack([np.asarray(Image.open(out / f"frame_{i:04d}.png").convert("RGB")) for i in range(4)])
    assert np.array_equal(frames, video.numpy()), f"{path} at {start}s: mean abs diff " \
        f"{np.abs(frames.astype(int) - video.numpy().astype(int)).mean():.3f}"


def test_batches_are_views_of_a_few_slots_and_len_is_the_epoch(dataset):
    with VideoLoader(dataset, batch_size=2, frames=4, hold=1) as loader:
        assert len(loader) == 4
        slots = loader._hello["slots"]
        base, size = loader._slots.address, loader._hello["slot_bytes"] * slots
        pointers, batches = set(), 0
        for epoch in range(3):
            loader.set_epoch(epoch)
            for batch in loader:
                pointers.add(batch.video.data_ptr())
                assert base <= batch.video.data_ptr() < base + size   # the tensor is the mapping: no copy
                assert batch.label.dtype == torch.int64 and batch["video"] is batch.video
                batches += 1
        assert batches == 12
        assert 2 <= len(pointers) <= slots


def test_layout_ncthw_and_copy_mode(dataset):
    with VideoLoader(dataset, batch_size=2, frames=4, layout="NCTHW", copy=True, seed=3) as a, \
            VideoLoader(dataset, batch_size=2, frames=4, layout="NTHWC", seed=3) as b:
        kept = [batch for batch in a]
        thwc = [batch.video.clone() for batch in b]
    assert kept[0].video.shape == (2, 3, 4, 112, 112)
    for copied, reference in zip(kept, thwc):   # copies outlive the loader, and hold the same pixels
        assert torch.equal(copied.video, reference.permute(0, 4, 1, 2, 3))


def test_state_dict_resumes_exactly_mid_epoch(dataset):
    with VideoLoader(dataset, batch_size=BATCH, frames=4, seed=5) as loader:
        loader.set_epoch(0)
        whole = take(loader) + take(loader)   # epochs 0 and 1
    with VideoLoader(dataset, batch_size=BATCH, frames=4, seed=5) as loader:
        first = take(loader, 2)
        state = loader.state_dict()
    with VideoLoader(dataset, batch_size=BATCH, frames=4, seed=5) as loader:
        loader.load_state_dict(state)
        rest = take(loader) + take(loader)
    assert first + rest == whole


def test_augmentations_flip_jitter_and_cut_clips_as_their_seeds_draw(dataset):
    def epoch(**augment):
        with VideoLoader(dataset, batch_size=4, frames=2, size=48, seed=4, epochs=1, **augment) as loader:
            return [(p, v.clone()) for batch in loader for p, v in zip(batch.paths, batch.video)]

    plain, flipped = epoch(), epoch(flip=True)
    assert [p for p, _ in flipped] == [p for p, _ in plain], "flips change no clip's choice"
    mirrored = []
    for (path, a), (_, b) in zip(plain, flipped):   # [T, H, W, C]: a mirror reverses W
        assert torch.equal(b, a) or torch.equal(b, a.flip(2)), path
        mirrored.append(not torch.equal(b, a))
    assert 0 < sum(mirrored) < len(mirrored), f"mirrored: {mirrored}"
    assert all(torch.equal(b, c) for (_, b), (_, c) in zip(flipped, epoch(flip=True))), "the seed draws the same flips"
    jittered = epoch(crop="random", short_side=48, short_side_max=96)
    assert [tuple(v.shape) for _, v in jittered] == [tuple(v.shape) for _, v in plain]
    assert any(not torch.equal(a, b) for (_, a), (_, b) in zip(plain, jittered))
    resized = epoch(crop="random-resized", area_min=0.3)
    assert [tuple(v.shape) for _, v in resized] == [tuple(v.shape) for _, v in plain]
    assert all(not torch.equal(a, b) for (_, a), (_, b) in zip(plain, resized)), "each clip a cut of its own"
    with pytest.raises(ValueError, match=r"shortSideMax: 40 \(expected: 0 for no jitter, or at least the short side, 48\)"):
        epoch(short_side_max=40)


def test_spatial_crops_deliver_each_clip_three_times_in_a_row_the_middle_its_centre_crop(dataset):
    def epoch(**crops):
        with VideoLoader(dataset, batch_size=4, frames=2, size=48, short_side=64, seed=4, epochs=1, shuffle=False,
                         clip_starts="uniform", clips_per_video=2, **crops) as loader:
            clips = [(p, s, v.clone()) for batch in loader for p, s, v in zip(batch.paths, batch.start_seconds, batch.video)]
            return len(loader), clips

    batches, plain = epoch()
    crop_batches, cropped = epoch(spatial_crops=3)
    assert len(cropped) == 3 * len(plain)
    assert crop_batches == -(-len(cropped) // 4), "len() counts each clip's crops"
    for i, (path, start, centre) in enumerate(plain):
        trio = cropped[3 * i:3 * i + 3]
        assert [(p, s) for p, s, _ in trio] == [(path, start)] * 3, "a clip's crops stand together"
        assert torch.equal(trio[1][2], centre), f"{path}@{start}: the middle crop is the centre crop"
        assert not torch.equal(trio[0][2], trio[2][2]), f"{path}@{start}: the outer crops differ"
    with pytest.raises(ValueError, match=r"spatialCrops: 3 with resize mode SHORT_SIDE_RANDOM_CROP \(expected: 1;"):
        epoch(spatial_crops=3, crop="random")


def test_segments_spread_a_clip_over_each_video_and_random_segments_draw_anew_each_epoch(dataset):
    def epochs(starts):
        with VideoLoader(dataset, batch_size=4, frames=8, size=48, seed=4, shuffle=False, clip_starts=starts) as loader:
            clips = []
            for epoch in range(2):   # an iteration is an epoch
                loader.set_epoch(epoch)
                clips += [(p, tuple(f)) for batch in loader for p, f in zip(batch.paths, batch.frame_seconds)]
            return clips

    middles, drawn = epochs("segments"), epochs("random-segments")
    assert len(middles) == len(drawn) == 16, "one clip a video an epoch"
    half = len(middles) // 2
    assert middles[:half] == middles[half:], "the middle frames are the same each epoch"
    assert drawn[:half] != middles[:half] and drawn[:half] != drawn[half:], "random frames, drawn anew each epoch"
    for path, frames in middles + drawn:
        assert len(frames) == 8 and list(frames) == sorted(frames), path
    with pytest.raises(ValueError, match=r"starts: SEGMENTS with clipsPerVideo 2 \(expected: no window"):
        with VideoLoader(dataset, clip_starts="segments", clips_per_video=2) as loader:
            next(iter(loader))


def test_set_epoch_jumps_to_that_epochs_batches(dataset):
    with VideoLoader(dataset, batch_size=4, frames=4, seed=2) as loader:
        epochs = [take(loader) for _ in range(3)]
    assert epochs[0] != epochs[2]
    with VideoLoader(dataset, batch_size=4, frames=4, seed=2) as loader:
        loader.set_epoch(2)
        assert take(loader) == epochs[2]
        loader.set_epoch(1)
        assert take(loader) == epochs[1]


def test_ranks_split_each_epoch(dataset):
    seen = []
    for rank in range(2):
        with VideoLoader(dataset, batch_size=2, frames=4, rank=rank, world_size=2, seed=4) as loader:
            assert len(loader) == 2
            seen.append([p for batch in loader for p in batch.paths])
    assert len(seen[0]) == len(seen[1]) == 4
    assert not set(seen[0]) & set(seen[1])


def test_stats_name_the_stages_and_the_consumer(dataset):
    with VideoLoader(dataset, batch_size=2, frames=4) as loader:
        for _ in loader:
            pass
        stats = loader.stats()
    assert stats["clips"] == 8
    assert stats["samples_per_second"] > 0
    assert 0.0 <= stats["data_wait_share"] <= 1.0
    assert {"decode", "collate"} <= {s["name"] for s in stats["stages"]}
    # The JVM's memory account: the batch slots in /dev/shm and the clip buffers' pool, inside the off-heap figure.
    memory = stats["process"]["memory_bytes"]
    assert memory["shared_memory"] > 0 and memory["pooled_buffers"] > 0
    assert stats["process"]["offheap_bytes"] >= memory["shared_memory"] + memory["pooled_buffers"]


@pytest.mark.parametrize("drop_last", [False, True])
def test_the_usual_epoch_loop_never_restarts_the_jvm(dataset, drop_last):
    with VideoLoader(dataset, batch_size=3, frames=4, drop_last=drop_last) as loader:
        pids, epochs = set(), []
        for epoch in range(3):
            loader.set_epoch(epoch)
            epochs.append({batch.epoch for batch in loader})
            pids.add(loader.pid)
        assert len(pids) == 1
        assert epochs == [{0}, {1}, {2}]
        assert len(loader) == (2 if drop_last else 3)


def _index_frame(index, width=96, height=64):
    """A frame showing its index: bit i is the 8x8 block i along the top row, white for 1 (survives JPEG)."""
    pixels = np.full((height, width, 3), 90, dtype=np.uint8)
    for bit in range(8):
        if (index >> bit) & 1:
            pixels[8:24, 4 + bit * 11:4 + bit * 11 + 8] = 255
    return pixels


def _read_index(frame, width=96, height=64):
    return sum(1 << bit for bit in range(8) if frame[16, 8 + bit * 11].mean() > 170)


def test_folders_of_jpeg_frames_load_as_videos(tmp_path):
    """mmaction2's rawframes layout: ROOT/<class>/<video>/img_00001.jpg, at the frame rate given."""
    for cls, video, count in (("archery", "v1", 30), ("archery", "v2", 24), ("bowling", "v3", 40)):
        folder = tmp_path / "rawframes" / cls / video
        folder.mkdir(parents=True)
        for i in range(count):
            Image.fromarray(_index_frame(i)).save(folder / f"img_{i + 1:05d}.jpg", quality=95)
    with VideoLoader(tmp_path / "rawframes", frames=4, stride=3, width=96, height=64, resize="stretch",
                     frame_folder_fps=25, batch_size=2, seed=3) as loader:
        seen = []
        for batch in loader:
            assert tuple(batch.video.shape[1:]) == (4, 64, 96, 3)
            for clip, seconds, path in zip(batch.video.numpy(), batch.frame_seconds, batch.paths):
                shown = [_read_index(frame) for frame in clip]
                assert shown == [shown[0] + 3 * k for k in range(4)], path
                assert [round(t * 25, 6) for t in seconds] == shown
                seen.append(path)
    assert sorted(p.split("/")[-1] for p in seen) == ["v1", "v2", "v3"]


def test_webdataset_tar_shards_give_the_batches_of_the_files_they_hold(dataset, tmp_path):
    """WebDataset shards written by Python's tarfile (<key>.mp4 beside <key>.cls and, for all but one sample, a <key>.txt
    caption) are read in place: the same clips, pixels and captions (batch.texts) as the same files listed in a manifest
    in the same order, whose fifth field is the caption."""
    import tarfile

    videos = sorted(dataset.glob("*/*"))
    classes = sorted({v.parent.name for v in videos})
    shards = tmp_path / "shards"
    shards.mkdir()
    rows = []
    for s, part in enumerate((videos[: len(videos) // 2], videos[len(videos) // 2:])):
        with tarfile.open(shards / f"train-{s:06d}.tar", "w", format=tarfile.PAX_FORMAT) as tar:
            for i, video in enumerate(part):
                key = f"{video.parent.name}_{video.stem}".replace(".", "_")
                label = classes.index(video.parent.name)
                tar.add(video.resolve(), arcname=f"{key}{video.suffix}")
                caption = None if (s, i) == (0, 1) else f"{key}: a person, \u00e9t\u00e9 \u6f22\n"
                members = [("cls", str(label))] + ([("txt", caption)] if caption is not None else [])
                for ext, text in members:
                    data = text.encode()
                    info = tarfile.TarInfo(f"{key}.{ext}")
                    info.size = len(data)
                    tar.addfile(info, io.BytesIO(data))
                quoted = "" if caption is None else ',,,"' + caption.rstrip("\n").replace('"', '""') + '"'
                rows.append(f"{video.resolve()},{label}{quoted}")
    manifest = tmp_path / "files.csv"
    manifest.write_text("\n".join(rows) + "\n", encoding="utf-8")

    def load(source):
        with VideoLoader(source, frames=4, stride=2, size=48, batch_size=3, seed=5, crop="random", flip=True) as loader:
            return [(batch.label.tolist(), batch.frame_seconds, batch.video.clone(), batch.detach().texts, batch["texts"])
                    for batch in loader], loader.failures

    from_shards, shard_failures = load(shards)
    from_files, file_failures = load(manifest)
    assert not shard_failures and not file_failures
    assert len(from_shards) == len(from_files) > 0
    texts = [t for b in from_shards for t in b[3]]
    assert None in texts and sum(t is not None for t in texts) == len(videos) - 1
    assert all(t is None or t.endswith(": a person, \u00e9t\u00e9 \u6f22\n") for t in texts)
    for a, b in zip(from_shards, from_files):
        assert a[0] == b[0] and a[1] == b[1]
        assert torch.equal(a[2], b[2])
        assert a[3] == a[4]
        # The manifest's caption has no newline (a CSV line cannot hold one): all else is the same.
        assert [t and t.rstrip("\n") for t in a[3]] == b[3]
    (tmp_path / "list.txt").write_text("x")
    with pytest.raises(ValueError, match="not a CSV manifest or a .tar archive"):
        VideoLoader(tmp_path / "list.txt")
