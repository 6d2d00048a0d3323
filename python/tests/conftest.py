"""Fixtures of the bridge's tests: the ``stoker`` command and small datasets the tests make themselves.

The tests import ``stoker`` as a user's program would: ``./run-tests`` installs the wheel into a fresh virtual
environment and runs a copy of this folder from outside the checkout (``bin/test-wheel``); from a checkout,
``PYTHONPATH=python python3 -m pytest python/tests`` tests the package in ``python/`` with the checkout's ``./stoker``.

The videos are made here: a small demo dataset (``stoker demo-data``: H.264 and VP8 from the bundled FFmpeg), with
two files from the ``ffmpeg`` command (H.264 with B-frames in Matroska; MPEG-4 Part 2 with MP3 audio in AVI) where
it is installed, and damaged files cut or garbled from them. The real third-party samples in ``../shared/videos``
(``STOKER_SHARED_VIDEOS``) serve only the tests about those files, which skip without them.
"""
import os
import shutil
import subprocess
from pathlib import Path

import pytest

import stoker as stoker_package
from stoker import stoker_command

# The checkout whose examples/ and bench/ the example's test runs (bin/test-wheel sets it; in a checkout, this one).
SOURCE = Path(os.environ.get("STOKER_SOURCE") or Path(__file__).resolve().parents[2])
SHARED = Path(os.environ.get("STOKER_SHARED_VIDEOS") or SOURCE.parent / "shared" / "videos")


def run(args, timeout=600):
    done = subprocess.run([str(a) for a in args], capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"{' '.join(map(str, args))}: exit {done.returncode}\n{done.stderr[-3000:]}"
    return done


def _ffmpeg_made(folder: Path) -> list:
    """Two videos of codecs the bundled (LGPL) FFmpeg cannot encode, from the ffmpeg command; none without it."""
    ffmpeg = shutil.which("ffmpeg")
    if ffmpeg is None:
        return []
    folder.mkdir(parents=True, exist_ok=True)
    made = []
    for name, args in (
            ("bframes_h264.mkv", ["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25", "-t", "3",
                                  "-c:v", "libx264", "-bf", "2", "-g", "30", "-pix_fmt", "yuv420p"]),
            ("mpeg4_mp3.avi", ["-f", "lavfi", "-i", "testsrc=size=256x192:rate=24", "-f", "lavfi",
                               "-i", "sine=frequency=440:sample_rate=44100", "-t", "3",
                               "-c:v", "mpeg4", "-q:v", "5", "-c:a", "libmp3lame"])):
        out = folder / name
        run([ffmpeg, "-nostdin", "-loglevel", "error", "-y", *args, str(out)])
        made.append(out)
    return made


@pytest.fixture(scope="session")
def stoker() -> str:
    return stoker_command()


@pytest.fixture(scope="session")
def videos(tmp_path_factory, stoker) -> Path:
    """Eight videos: ROOT/<class>/<video>, four a class."""
    made = tmp_path_factory.mktemp("videos")
    demo = made / "demo"
    extra = _ffmpeg_made(made / "ffmpeg")
    run([stoker, "demo-data", demo, "--classes", "2", "--clips", str(4 - len(extra) // 2), "--seconds", "3"])
    classes = sorted(p for p in demo.iterdir() if p.is_dir())
    for i, video in enumerate(extra):
        video.rename(classes[i % len(classes)] / video.name)
    return demo


@pytest.fixture(scope="session")
def dataset(tmp_path_factory, videos) -> Path:
    """ROOT/<class>/<video>: the eight videos in two classes (links, so that tests may add classes beside them)."""
    root = tmp_path_factory.mktemp("dataset")
    for video in sorted(videos.glob("*/*")):
        (root / video.parent.name).mkdir(exist_ok=True)
        (root / video.parent.name / video.name).symlink_to(video)
    return root


@pytest.fixture(scope="session")
def damaged_dataset(tmp_path_factory, videos) -> Path:
    """The good videos plus a class ``broken`` of two damaged ones: an MP4 cut before its index (no moov atom) and a
    Matroska file whose bytes after the header are noise."""
    root = tmp_path_factory.mktemp("damaged")
    for video in sorted(videos.glob("*/*")):
        (root / video.parent.name).mkdir(exist_ok=True)
        (root / video.parent.name / video.name).symlink_to(video)
    broken = root / "broken"
    broken.mkdir()
    mp4 = sorted(videos.glob("*/*.mp4"))[0].read_bytes()
    (broken / "cut_before_moov.mp4").write_bytes(mp4[:len(mp4) // 2])   # the muxer writes the index last
    (broken / "noise.mkv").write_bytes(b"\x1a\x45\xdf\xa3" + bytes((i * 7919) % 251 for i in range(64 * 1024)))
    return root


@pytest.fixture(scope="session")
def shared_videos() -> Path:
    if not SHARED.is_dir():
        pytest.skip(f"no third-party sample videos: {SHARED} is absent (the shared folder beside the checkout)")
    return SHARED


def package_only_path(tmp_path: Path) -> str:
    """A folder holding only the ``stoker`` package this process imported: a PYTHONPATH that gives another
    interpreter (Debian's, with its own torch) this package and nothing else of this environment."""
    folder = tmp_path / "package-only"
    folder.mkdir(exist_ok=True)
    link = folder / "stoker"
    if not link.exists():
        link.symlink_to(Path(stoker_package.__file__).resolve().parent)
    return str(folder)


def stoker_env() -> dict:
    """This process's environment, with the imported ``stoker`` package on PYTHONPATH for child interpreters."""
    env = dict(os.environ)
    here = str(Path(stoker_package.__file__).resolve().parents[1])
    env["PYTHONPATH"] = here + os.pathsep + env.get("PYTHONPATH", "")
    return env
