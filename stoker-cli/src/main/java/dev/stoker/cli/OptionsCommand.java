package dev.stoker.cli;

import dev.stoker.loader.OptionsSchema;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code stoker options}: the options document a loader command would run with, or the document's JSON Schema
 * (what {@code docs/options.schema.json} holds and the Python bridge is generated from).
 */
@Command(name = "options",
        header = "Print the loader options document the flags make, or its JSON Schema.",
        mixinStandardHelpOptions = true,
        description = {
                "Prints the options document (JSON) that bench, headspace, train and serve would run with for the",
                "same flags: the defaults, then --config's file, then --options' document, then the flags given.",
                "Save it, edit it, and give it back with --config. With --schema, prints the document's JSON Schema",
                "instead: every option's path, type, bounds, default, meaning and Python keyword. DATASET is not read.",
                "",
        },
        footerHeading = "%nExamples:%n",
        footer = {
                "  stoker options --frames 8 --batch 16 > loader.json",
                "  stoker bench DATA --config loader.json              then run with it",
                "  stoker options --options '{\"decode\": {\"threads\": 2}}'",
                "  stoker options --schema > docs/options.schema.json",
        })
final class OptionsCommand extends Subcommand {
    @Mixin
    LoaderOptionsMixin loader;

    @Option(names = "--schema") boolean schema;

    @Override
    public Integer call() {
        out().print(schema ? OptionsSchema.json() : loader.loaderOptions().toJson() + System.lineSeparator());
        out().flush();
        return 0;
    }
}
