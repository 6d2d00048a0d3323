package dev.stoker.cli;

import java.util.Map;
import java.util.Stack;
import picocli.CommandLine.IParameterPreprocessor;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * An option with an optional port ({@code --dashboard [PORT]}, {@code --web [PORT]}): takes the next
 * argument only when it is a port number, so that {@code --dashboard DATA} leaves {@code DATA} to the
 * positional parameter and uses the option's fallback port.
 */
final class OptionalPort implements IParameterPreprocessor {
    @Override
    public boolean preprocess(Stack<String> args, CommandSpec commandSpec, ArgSpec argSpec, Map<String, Object> info) {
        if ("=".equals(info.get("separator")) || (!args.isEmpty() && args.peek().matches("\\d{1,5}"))) {
            return false;   // --opt=PORT or --opt PORT: picocli takes the value as usual
        }
        argSpec.setValue(Integer.valueOf(((OptionSpec) argSpec).fallbackValue()));
        return true;
    }
}
