package dev.periscope.harness.cli;

import dev.periscope.harness.profile.ProjectConfig;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code harness watch SESSION --profile P [--project DIR] [--expires SECONDS] [--stop]}: a
 * one-time link to a read-only live view of a running session's current tab, from the browser
 * plugin's operator tool {@code browser_watch}, which finds the process of the profile that runs
 * the session (another {@code harness mcp} or {@code harness run}) through the plugin's store. The
 * link goes to standard output, for the operator alone; {@code --stop} ends the session's watches.
 */
@Command(
    name = "watch",
    description =
        "Print a one-time link to a read-only live view of a running session's current tab"
            + " (--stop ends the session's watches).")
final class WatchCommand implements Callable<Integer> {
  @Option(names = "--profile", required = true)
  String profile;

  @Parameters(paramLabel = "SESSION", description = "an agent session id or a browser session id")
  String session;

  @Option(names = "--project", description = "the project of the agent session")
  Path project;

  @Option(
      names = "--expires",
      paramLabel = "SECONDS",
      description = "how long the link works unused (1 to 3600, default 60)")
  Integer expires;

  @Option(names = "--stop", description = "stop the session's open watches instead")
  boolean stop;

  @Override
  public Integer call() {
    Map<String, Object> args = new LinkedHashMap<>();
    args.put("session", session);
    if (project != null) {
      args.put("project", ProjectConfig.canonical(project).toString());
    }
    if (expires != null) {
      args.put("expires_in_seconds", expires);
    }
    if (stop) {
      args.put("stop", true);
    }
    String text = Operations.run(Main.home(), profile, "browser_watch", args).text();
    System.out.print(text.endsWith("\n") ? text : text + "\n");
    return 0;
  }
}
