package dev.stoker.cli;

import picocli.CommandLine.IDefaultValueProvider;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * The defaults of the loader flags ({@code --frames}, {@code --batch}, ...), read from the one place they are set,
 * {@code LoaderOptions.defaults()}, so that {@code --help} shows them and no declaration repeats them. Flags of
 * other kinds keep their own {@code defaultValue}.
 */
final class LoaderFlagDefaults implements IDefaultValueProvider {
    @Override
    public String defaultValue(ArgSpec arg) {
        return arg instanceof OptionSpec option && (option.command().userObject() instanceof LoaderOptionsMixin
                || option.command().mixins().values().stream().anyMatch(m -> m.userObject() instanceof LoaderOptionsMixin))
                ? LoaderOptionsMixin.defaultOf(option.longestName()) : null;
    }
}
