"""Times the PyTorch bridge over WebDataset shards, with or without a caption per sample (docs/benchmarks.md, "Sample
texts"): batches a second through ``stoker.torch.VideoLoader``, each batch's texts read as a training step would.

    python bench/texts_bridge.py SHARDS [--batches N]
"""
import argparse
import time

from stoker.torch import VideoLoader


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("shards")
    parser.add_argument("--batches", type=int, default=200)
    args = parser.parse_args()
    with VideoLoader(args.shards, batch_size=8, frames=16, stride=2, size=112, epochs=1000) as loader:
        it = iter(loader)
        next(it)  # the first batch: the JVM's start, not the rate
        start = time.perf_counter()
        chars = 0
        with_text = 0
        for _ in range(args.batches):
            batch = next(it)
            for text in batch.texts:
                if text is not None:
                    with_text += 1
                    chars += len(text)
        elapsed = time.perf_counter() - start
    print(f"texts {args.shards}: {args.batches * 8 / elapsed:.1f} samples/s, {with_text} clips with text, "
          f"{chars} characters")


if __name__ == "__main__":
    main()
