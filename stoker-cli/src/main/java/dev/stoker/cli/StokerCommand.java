package dev.stoker.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.ExitCode;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;

/**
 * The {@code stoker} command. Each subcommand is one class, registered by one line in
 * {@code subcommands} below; give it {@code mixinStandardHelpOptions = true} and an Examples footer
 * ({@code footerHeading = "%nExamples:%n"}), which {@code StokerCommandUsageTest} checks for every subcommand.
 *
 * <p>The text of every option and parameter is in {@code help.properties} (this command's resource bundle, which
 * the subcommands inherit), keyed by the option's name: an option that several commands share is described once,
 * the same everywhere, and the declarations stay one line each. {@code HelpTextTest} fails on an option without
 * a text and on a key no option reads.
 *
 * <p>Exit codes: 0 ok, 1 failure, 2 usage error. Errors are one line on standard error; {@code -v} or
 * {@code STOKER_DEBUG=1} adds the stack trace. {@link #commandLine()} sets that up; {@link #main} uses it.
 */
@Command(name = "stoker", resourceBundle = "dev.stoker.cli.help",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        description = "Stoker keeps GPUs fed when models train on video: a data loader of stages that run "
                + "concurrently, with stats that name the bottleneck.",
        commandListHeading = "%nCommands:%n",
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:success", "1:failure: one line on standard error (-v or STOKER_DEBUG=1: the stack trace too)",
                "2:usage error: an unknown option, a bad value"},
        footerHeading = "%nExamples:%n",
        footer = {
                "  stoker bench                  demo dataset (made once): live stats, samples/s",
                "  stoker bench DATA --json r.json --report r.html",
                "  stoker demo                   a synthetic pipeline's live stats for 10 s",
                "  stoker demo --seconds 30 --trace demo.trace.json",
                "                                30 s, and a trace for ui.perfetto.dev",
                "  stoker demo --help            the options of a command",
        },
        subcommands = {
                DemoCommand.class,
                BenchCommand.class,
                ClipCommand.class,
                DemoDataCommand.class,
                MonitorCommand.class,
                HeadspaceCommand.class,
                TrainCommand.class,
                TuneCommand.class,
                IngestCommand.class,
                InspectCommand.class,
                VerifyCommand.class,
                ScanCommand.class,
                ServeCommand.class,
                OptionsCommand.class,
        })
public final class StokerCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = {"-v", "--verbose"}, scope = ScopeType.INHERIT) boolean verbose;

    public static void main(String... args) {
        // The AWS SDK (s3:// locations) logs through SLF4J, which has no binding here: without this its three-line
        // warning would come before a command's own one-line error. A user's -Dslf4j.internal.verbosity wins.
        if (System.getProperty("slf4j.internal.verbosity") == null) {
            System.setProperty("slf4j.internal.verbosity", "ERROR");
        }
        System.exit(commandLine().execute(args));
    }

    /** The command line with Stoker's error handling: one-line errors, exit codes 0 / 1 / 2. */
    public static CommandLine commandLine() {
        return HelpParagraphs.apply(new CommandLine(new StokerCommand()))
                .setDefaultValueProvider(new LoaderFlagDefaults())
                .setParameterExceptionHandler(CliErrors::onUsageError)
                .setExecutionExceptionHandler(CliErrors::onFailure);
    }

    /** {@code stoker} alone: the usage, on standard error, as a usage error. */
    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getErr());
        return ExitCode.USAGE;
    }
}
