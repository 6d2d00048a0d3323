/**
 * Frame-exact video clip decoding on FFmpeg.
 *
 * <p>{@link dev.stoker.video.Video} opens a file (from memory or by path), picks its best video
 * stream and indexes every packet once. {@link dev.stoker.video.ClipDecoder} (one per thread)
 * decodes {@link dev.stoker.video.ClipRequest}s: a {@link dev.stoker.loader.clip.ClipSpec} choosing
 * frames by time, a {@link dev.stoker.loader.clip.Resize} and a destination segment receiving RGB24 HWC
 * frames, upright and colour-correct. Failures are {@link dev.stoker.video.VideoException}s with
 * a machine-friendly reason. {@link dev.stoker.video.ClipExport} writes a clip as PNGs for people.
 *
 * <p>Everything else here is a package-private wrapper that owns exactly one kind of FFmpeg object.
 */
package dev.stoker.video;
