package dev.stoker.dist;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The fenced code blocks of a Markdown file, with their info strings: {@code ```bash build} is a block in language
 * {@code bash} marked {@code build}. The tests of what the README shows run its blocks as written.
 */
record FencedBlocks(Path file, List<Block> blocks) {
    /** One block: its language, the words after it, its text, and the line its text starts on. */
    record Block(String language, List<String> marks, String text, int line) {
    }

    static FencedBlocks read(Path file) throws IOException {
        List<Block> blocks = new ArrayList<>();
        List<String> lines = Files.readAllLines(file);
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            if (!line.startsWith("```") || line.length() == 3) {
                continue;
            }
            String[] info = line.substring(3).trim().split("\\s+");
            StringBuilder text = new StringBuilder();
            int start = i + 1;
            for (i = start; i < lines.size() && !lines.get(i).startsWith("```"); i++) {
                text.append(lines.get(i)).append('\n');
            }
            blocks.add(new Block(info[0], List.of(info).subList(1, info.length), text.toString(), start + 1));
        }
        return new FencedBlocks(file, blocks);
    }

    /** The one block in {@code language}; fails naming the file when there is none or several. */
    Block only(String language) {
        List<Block> found = blocks.stream().filter(b -> b.language().equals(language)).toList();
        if (found.size() != 1) {
            throw new AssertionError(file + ": " + found.size() + " ```" + language + " blocks (expected: 1)");
        }
        return found.getFirst();
    }

    /** The first line of any block that starts with {@code prefix}. */
    String lineStartingWith(String prefix) {
        return blocks.stream().flatMap(b -> b.text().lines()).map(String::strip).filter(l -> l.startsWith(prefix))
                .findFirst().orElseThrow(() -> new AssertionError(file + ": no line starting with '" + prefix + "'"));
    }
}
