package dev.stoker.loader.dataset.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * WebDataset's way of naming many shards at once, {@code train-{000000..000146}.tar} or {@code {train,extra}-{0..9}.tar}
 * (Python's {@code braceexpand}, which WebDataset's URLs go through): a numeric range, zero-padded when a bound is, or
 * a list of alternatives, each brace group in turn, left to right.
 */
public final class BracePattern {
    /** More names than this is a mistake in the pattern (a bound typed with an extra digit), not a dataset. */
    static final int MAX_NAMES = 1_000_000;
    private static final Pattern RANGE = Pattern.compile("(\\d+)\\.\\.(\\d+)");

    private BracePattern() {
    }

    /** Whether {@code text} holds a brace group to expand. */
    public static boolean isPattern(String text) {
        int open = text.indexOf('{');
        return open >= 0 && text.indexOf('}', open) > open;
    }

    /**
     * The names {@code pattern} stands for, in its order.
     *
     * @throws IllegalArgumentException for a brace left open, nested braces, a group neither a range nor a list, or
     *                                  more than {@link #MAX_NAMES} names
     */
    public static List<String> expand(String pattern) {
        List<String> names = List.of("");
        int at = 0;
        while (true) {
            int open = pattern.indexOf('{', at);
            String literal = open < 0 ? pattern.substring(at) : pattern.substring(at, open);
            if (open < 0) {
                return names.stream().map(n -> n + literal).toList();
            }
            int close = pattern.indexOf('}', open);
            if (close < 0) {
                throw new IllegalArgumentException(pattern + ": a { without its } (expected: {0..9} or {a,b})");
            }
            String body = pattern.substring(open + 1, close);
            if (body.indexOf('{') >= 0) {
                throw new IllegalArgumentException(pattern + ": nested braces (expected: {0..9} or {a,b} groups side by"
                        + " side)");
            }
            List<String> choices = choices(pattern, body);
            if ((long) names.size() * choices.size() > MAX_NAMES) {
                throw new IllegalArgumentException(pattern + ": more than " + MAX_NAMES + " names");
            }
            List<String> longer = new ArrayList<>(names.size() * choices.size());
            for (String name : names) {
                for (String choice : choices) {
                    longer.add(name + literal + choice);
                }
            }
            names = longer;
            at = close + 1;
        }
    }

    private static List<String> choices(String pattern, String body) {
        Matcher range = RANGE.matcher(body);
        if (range.matches()) {
            String from = range.group(1);
            String to = range.group(2);
            // Padded as braceexpand pads: to the longer bound's width when either bound has a leading zero.
            boolean padded = from.length() > 1 && from.startsWith("0") || to.length() > 1 && to.startsWith("0");
            int width = padded ? Math.max(from.length(), to.length()) : 0;
            long first;
            long last;
            try {
                first = Long.parseLong(from);
                last = Long.parseLong(to);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(pattern + ": {" + body + "}: a bound too large");
            }
            if (Math.abs(last - first) >= MAX_NAMES) {
                throw new IllegalArgumentException(pattern + ": more than " + MAX_NAMES + " names");
            }
            List<String> numbers = new ArrayList<>();
            long step = last >= first ? 1 : -1;
            for (long n = first; n != last + step; n += step) {
                String digits = Long.toString(n);
                numbers.add(digits.length() < width ? "0".repeat(width - digits.length()) + digits : digits);
            }
            return numbers;
        }
        if (body.indexOf(',') >= 0) {
            return List.of(body.split(",", -1));
        }
        throw new IllegalArgumentException(pattern + ": {" + body + "} is neither a range {0..9} nor a list {a,b}");
    }
}
