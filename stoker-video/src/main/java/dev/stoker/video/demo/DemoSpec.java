package dev.stoker.video.demo;

import java.util.List;

/**
 * Shape of a generated demo dataset. {@link #kineticsLike()} is the full-size default: 10 classes ×
 * 10 clips of 10 s, 340×256 at 30 fps, like the resized Kinetics files video models train on.
 *
 * @param classCount number of action classes, 1 to {@link #CLASS_NAMES}.size()
 * @param clipsPerClass clips written into each class folder
 * @param clipSeconds length of every clip
 * @param width frame width in pixels (even)
 * @param height frame height in pixels (even)
 * @param framesPerSecond constant frame rate
 * @param seed all content derives from it, so equal specs give equal pictures
 */
public record DemoSpec(int classCount, int clipsPerClass, double clipSeconds, int width, int height,
                       int framesPerSecond, long seed) {

    /** Kinetics-400 action names, used as folder names (spaces replaced by underscores). */
    public static final List<String> CLASS_NAMES = List.of(
            "abseiling", "archery", "juggling_balls", "playing_drums", "riding_a_bike",
            "skateboarding", "surfing_water", "swimming_backstroke", "tai_chi", "walking_the_dog");

    public DemoSpec {
        if (classCount < 1 || classCount > CLASS_NAMES.size()) {
            throw new IllegalArgumentException(
                    "classCount: " + classCount + " (expected: 1.." + CLASS_NAMES.size() + ")");
        }
        if (clipsPerClass < 1) {
            throw new IllegalArgumentException("clipsPerClass: " + clipsPerClass + " (expected: 1+)");
        }
        if (!(clipSeconds > 0) || clipSeconds > 3600) {
            throw new IllegalArgumentException("clipSeconds: " + clipSeconds + " (expected: (0, 3600])");
        }
        if (width < 64 || height < 64 || width % 2 != 0 || height % 2 != 0) {
            throw new IllegalArgumentException(
                    "size: " + width + "x" + height + " (expected: even, 64x64 or larger)");
        }
        if (framesPerSecond < 1 || framesPerSecond > 240) {
            throw new IllegalArgumentException("framesPerSecond: " + framesPerSecond + " (expected: 1..240)");
        }
    }

    /** The full-size dataset: 100 clips of 10 s, 340×256, 30 fps. */
    public static DemoSpec kineticsLike() {
        return new DemoSpec(10, 10, 10.0, 340, 256, 30, 20240612L);
    }

    /** Same content style, other counts and length; for tests and quick runs. */
    public static DemoSpec small(int classCount, int clipsPerClass, double clipSeconds) {
        DemoSpec full = kineticsLike();
        return new DemoSpec(classCount, clipsPerClass, clipSeconds, full.width, full.height,
                full.framesPerSecond, full.seed);
    }

    /** Frames in every clip. */
    public int framesPerClip() {
        return Math.max(1, (int) Math.round(clipSeconds * framesPerSecond));
    }

    /** Folder names of the classes in use, sorted (they are listed sorted already). */
    public List<String> classNames() {
        return CLASS_NAMES.subList(0, classCount);
    }

    public int clipCount() {
        return classCount * clipsPerClass;
    }
}
