package dev.periscope.harness.demo;

import dev.periscope.api.tool.ToolResult;
import dev.periscope.harness.host.Host;
import dev.periscope.harness.host.ScriptRunner;
import dev.periscope.harness.profile.HarnessHome;
import dev.periscope.harness.profile.PluginInstaller;
import dev.periscope.harness.profile.ProjectConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code harness demo}: installs the built plugin into profile {@code demo}, serves a small site on
 * 127.0.0.1, and runs a scripted agent session against it, printing the transcript.
 */
@Command(
    name = "demo",
    description =
        "Install the plugin into profile 'demo' and run a scripted session on a local site.")
public final class Demo implements Callable<Integer> {
  @Option(
      names = "--package",
      description = "the plugin package (default: the one this checkout built)")
  Path packageFile =
      Path.of(
          System.getProperty(
              "periscope.package", "browser-plugin/target/periscope-browser-0.1.0.zip"));

  @Option(names = "--profile", description = "profile to install into (default: ${DEFAULT-VALUE})")
  String profile = "demo";

  @Override
  public Integer call() throws Exception {
    HarnessHome home = HarnessHome.fromEnvironment();
    System.out.println(
        "Installing " + packageFile + " into profile " + profile + " (" + home.root() + ")");
    System.out.println(
        PluginInstaller.add(home, profile, packageFile, true).lines().findFirst().orElse(""));
    Path project = home.root().resolve("demo-project");
    Files.createDirectories(project.resolve(".harness"));
    Files.writeString(
        ProjectConfig.fileOf(project),
        """
        # The demo's project: the browser may reach only the local demo site.
        plugins:
          browser:
            network:
              mode: allowlist
              allowCidrs: ["127.0.0.1/32"]
        """);
    try (DemoSite site = DemoSite.standard();
        Host host = Host.start(home, profile, project, Host.Options.defaults())) {
      System.out.println("Serving the demo site at " + site.url("/"));
      System.out.println(
          "Tools offered: " + String.join(", ", host.tools().stream().map(t -> t.name()).toList()));
      System.out.println();
      List<Map<String, Object>> steps =
          List.of(
              Map.of("tool", "browser_open", "args", Map.of("url", site.url("/"))),
              Map.of("tool", "browser_observe", "args", Map.of()),
              Map.of(
                  "tool",
                  "browser_click",
                  "args",
                  Map.of("target", Map.of("role", "button", "name", "Show the answer"))),
              Map.of("tool", "browser_observe", "args", Map.of()),
              Map.of("tool", "browser_screenshot", "args", Map.of()));
      String session = "demo-session";
      ScriptRunner runner = new ScriptRunner(host, session);
      ScriptRunner.StepResult last = null;
      try {
        for (int i = 0; i < steps.size(); i++) {
          last = runner.step(i + 1, steps.get(i));
          ScriptRunner.print(last, false, System.out);
          if (last.result().isError()) {
            return 1;
          }
        }
      } finally {
        host.endSession(session);
      }
      ToolResult shot = last.result();
      @SuppressWarnings("unchecked")
      Map<String, Object> attachment = (Map<String, Object>) shot.structured().get("attachment");
      String ref = (String) attachment.get("ref");
      Path stored = host.attachments().flatMap(a -> a.locate(ref)).orElseThrow();
      System.out.println("The screenshot is attachment " + ref + ", stored at " + stored);
      return 0;
    }
  }
}
