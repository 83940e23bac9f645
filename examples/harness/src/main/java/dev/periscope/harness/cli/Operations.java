package dev.periscope.harness.cli;

import dev.periscope.api.tool.ToolResult;
import dev.periscope.harness.HarnessException;
import dev.periscope.harness.host.Host;
import dev.periscope.harness.profile.HarnessHome;
import dev.periscope.harness.profile.PluginInstaller;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * The operator's way into what a plugin keeps: a host of the profile started on an empty project,
 * one tool of a plugin's operator skill run in it ({@link Host#operate}), the host stopped. The
 * harness reads no plugin's storage itself.
 */
final class Operations {
  private Operations() {}

  /** The result of an operator tool; a failure is a {@link HarnessException} with its text. */
  static ToolResult run(
      HarnessHome home, String profile, String tool, Map<String, Object> arguments) {
    Path project;
    try {
      project = Files.createTempDirectory("harness-operator-");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    try {
      return run(home, profile, project, tool, arguments);
    } finally {
      PluginInstaller.deleteTree(project);
    }
  }

  /** The same on a host of {@code project} (its configuration read, nothing in it written). */
  static ToolResult run(
      HarnessHome home, String profile, Path project, String tool, Map<String, Object> arguments) {
    return runAll(home, profile, project, java.util.List.of(tool), arguments).get(0);
  }

  /**
   * Several operator tools, each with {@code arguments}, one after the other on one host of {@code
   * project}: their results in order; the first that fails is the failure.
   */
  static java.util.List<ToolResult> runAll(
      HarnessHome home,
      String profile,
      Path project,
      java.util.List<String> tools,
      Map<String, Object> arguments) {
    Host host = Host.start(home, profile, project, Host.Options.defaults().forOperators());
    java.util.List<ToolResult> results = new java.util.ArrayList<>();
    try {
      if (host.operatorTools().isEmpty()) {
        // Host.operate names the tools there are; when there are none, say why and what to do.
        throw new HarnessException(
            "no plugin in profile "
                + profile
                + " offers operator tools (a browser plugin installed before host API 2.1.0 has"
                + " none); reinstall it with harness plugin add --replace --profile "
                + profile
                + " PACKAGE");
      }
      for (String tool : tools) {
        results.add(host.operate(tool, arguments));
      }
    } catch (RuntimeException e) {
      try {
        host.close();
      } catch (RuntimeException closing) {
        e.addSuppressed(closing);
      }
      throw e;
    }
    try {
      host.close();
    } catch (RuntimeException e) {
      // The answer stands; what went wrong while stopping is the operator's to know.
      System.err.println("harness: the host stopped with a failure: " + e.getMessage());
    }
    for (ToolResult result : results) {
      if (result.isError()) {
        throw new HarnessException(result.text());
      }
    }
    return results;
  }
}
