#!/usr/bin/env bash
# Prepares what bench/gpu/on-device.sh needs on the GPU machine, here (a machine with the JDK, Maven and ffmpeg):
# the bundle and the test bundle, the shared sample videos, and a 1080p H.264 MP4 remuxed (not re-encoded) from the
# shared 1080p AVI: the AVI's packets carry no pts, so Stoker's own NVDEC session leaves it to FFmpeg's NVDEC; in MP4
# the same stream goes through the session, which is what the 1080p figures are about.
#
#   bench/gpu/prepare.sh DIR        then carry DIR (under 64 MiB: one .tar.xz) and run: bench/gpu/on-device.sh proof DIR 540
set -euo pipefail
dir="$1"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
mkdir -p "$dir/videos"
"$root/bin/make-bundle" --tests --out "$dir"
cp -r "$root/../shared/videos/." "$dir/videos/"
ffmpeg -loglevel error -y -fflags +genpts -i "$dir/videos/mmaction2_ntu_S001C001P001R001A001_1080p.avi" -c copy -an \
  -movflags +faststart "$dir/videos/DERIVED_ntu_1080p_h264.mp4"
# Under the 64 MiB a device call carries: both bundles as one .tar.xz, without the AWS SDK's jars (object storage is
# not part of the GPU proof), as the first GPU session carried them. on-device.sh unpacks either form.
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
for archive in "$dir"/stoker-*-linux-x86_64.tar.gz "$dir"/stoker-*-linux-x86_64-tests.tar.gz; do
  tar -C "$tmp" -xzf "$archive"
done
rm -f "$tmp"/stoker-*-linux-x86_64/lib/*-2.57.8.jar
tar -C "$tmp" -cJf "$dir/stoker-gpu-device.tar.xz" .
rm -f "$dir"/stoker-*-linux-x86_64.tar.gz "$dir"/stoker-*-linux-x86_64-tests.tar.gz
du -sh "$dir"
