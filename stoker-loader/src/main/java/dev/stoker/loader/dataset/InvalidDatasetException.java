package dev.stoker.loader.dataset;

import java.io.IOException;

/** A dataset source exists but cannot be read as a dataset: malformed manifest, no classes, no videos. */
final class InvalidDatasetException extends IOException {

    public InvalidDatasetException(String message) {
        super(message);
    }
}
