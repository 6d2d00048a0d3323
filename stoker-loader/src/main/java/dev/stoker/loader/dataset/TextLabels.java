package dev.stoker.loader.dataset;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.IntFunction;
import java.util.regex.Pattern;

/**
 * Labels written as text (a manifest's column, a WebDataset {@code .cls} member), read one way wherever they come
 * from: all integers are kept as given (the class names are then {@code "0"}, {@code "1"}, …, up to the largest), all
 * class names are numbered in sorted name order; a mix is refused, since {@code 3} beside {@code archery} is a mistake
 * either way.
 *
 * @param classNames label {@code i} stands for {@code classNames.get(i)}
 * @param labels     each text's label, in the order given
 */
record TextLabels(List<String> classNames, int[] labels) {
    private static final Pattern INTEGER = Pattern.compile("[+-]?\\d+");

    /**
     * Reads {@code texts}; {@code where.apply(i)} names text {@code i} in an error ({@code "m.csv line 3"}), and
     * {@code whereFirst} how the first text is named when another disagrees with it ({@code "line 1"}).
     */
    static TextLabels of(List<String> texts, IntFunction<String> where, String whereFirst, String oneKindIn)
            throws InvalidDatasetException {
        String first = texts.get(0);
        boolean numeric = INTEGER.matcher(first).matches();
        int[] labels = new int[texts.size()];
        if (numeric) {
            int maxLabel = 0;
            for (int i = 0; i < texts.size(); i++) {
                String text = texts.get(i);
                if (!INTEGER.matcher(text).matches()) {
                    throw new InvalidDatasetException(where.apply(i) + ": label '" + text + "' is a class name, but "
                            + whereFirst + " has integer label " + first + " (expected: one kind in " + oneKindIn + ")");
                }
                labels[i] = integer(text, where.apply(i));
                maxLabel = Math.max(maxLabel, labels[i]);
            }
            List<String> classNames = new ArrayList<>(maxLabel + 1);
            for (int i = 0; i <= maxLabel; i++) {
                classNames.add(Integer.toString(i));
            }
            return new TextLabels(classNames, labels);
        }
        TreeSet<String> names = new TreeSet<>();
        for (int i = 0; i < texts.size(); i++) {
            String text = texts.get(i);
            if (INTEGER.matcher(text).matches()) {
                throw new InvalidDatasetException(where.apply(i) + ": label " + text + " is an integer, but " + whereFirst
                        + " has class name '" + first + "' (expected: one kind in " + oneKindIn + ")");
            }
            names.add(text);
        }
        List<String> classNames = List.copyOf(names);
        Map<String, Integer> index = new HashMap<>();
        for (int i = 0; i < classNames.size(); i++) {
            index.put(classNames.get(i), i);
        }
        for (int i = 0; i < texts.size(); i++) {
            labels[i] = index.get(texts.get(i));
        }
        return new TextLabels(classNames, labels);
    }

    private static int integer(String text, String where) throws InvalidDatasetException {
        try {
            int label = Integer.parseInt(text);
            if (label >= 0) {
                return label;
            }
        } catch (NumberFormatException ignored) {
            // too large: reported below
        }
        throw new InvalidDatasetException(where + ": label " + text + " (expected: 0.." + Integer.MAX_VALUE + ")");
    }
}
