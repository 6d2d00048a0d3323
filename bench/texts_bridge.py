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
    with VideoLoader(args.shards, batch_size=8, frames=16, stride=2, size=112) as loader:
        taken = -1  # the first batch is the JVM's start, not the rate
        chars = 0
        with_text = 0
        clips = 0
        while taken < args.batches:
            for batch in loader:  # an epoch
                if taken == -1:
                    start = time.perf_counter()
                else:
                    clips += len(batch)
                    for text in batch.texts:
                        if text is not None:
                            with_text += 1
                            chars += len(text)
                taken += 1
                if taken == args.batches:
                    break
        elapsed = time.perf_counter() - start
    print(f"texts {args.shards}: {clips / elapsed:.1f} samples/s, {with_text} of {clips} clips with text, "
          f"{chars} characters")


if __name__ == "__main__":
    main()
