package dev.periscope.verify;

import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code verify-package PACKAGE [--source plugin.yaml] [--max-bytes N]}: exit 0 and a summary, or 1
 * and failures.
 */
@Command(
    name = "verify",
    mixinStandardHelpOptions = true,
    description = "Check a built Periscope plugin package.")
public final class VerifyCommand implements Callable<Integer> {
  @Parameters(index = "0", paramLabel = "PACKAGE", description = "the plugin package (.zip)")
  Path packageFile;

  @Option(
      names = "--source",
      paramLabel = "PLUGIN_YAML",
      description = "the source plugin.yaml the package must carry")
  Path source;

  @Option(names = "--max-bytes", description = "size budget in bytes (default ${DEFAULT-VALUE})")
  long maxBytes = PackageVerifier.DEFAULT_MAX_BYTES;

  @Override
  public Integer call() {
    VerificationReport report =
        new PackageVerifier(maxBytes).verify(packageFile, Optional.ofNullable(source));
    if (report.passed()) {
      System.out.print(report.render());
      return 0;
    }
    System.err.print(report.render());
    return 1;
  }

  public static void main(String[] args) {
    System.exit(new CommandLine(new VerifyCommand()).execute(args));
  }
}
