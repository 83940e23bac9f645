package dev.periscope.harness;

import dev.periscope.api.Cancellation;
import dev.periscope.api.tool.ToolResult;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code harness doctor}: Java, the installed plugins, Chromium, and a live check that the browser provider opens
 * a local page. Each check prints {@code [ok  ]} or {@code [FAIL]} with a remedy; any failure exits 1.
 */
@Command(name = "doctor", description = "Check Java, installed plugins, Chromium, and a live page open.")
final class Doctor implements Callable<Integer> {
  @Option(names = "--profile", description = "profile for the live check (default: the first with the browser plugin)")
  String profile;

  private record Check(String label, boolean ok, String detail, String remedy) {}

  private final List<Check> checks = new ArrayList<>();

  @Override
  public Integer call() throws Exception {
    int java = Runtime.version().feature();
    add("java", java >= 17, "Java " + Runtime.version(), "install Java 17 or newer");
    HarnessHome home = Main.home();
    String live = profile;
    Path profiles = home.root().resolve("profiles");
    if (Files.isDirectory(profiles)) {
      try (Stream<Path> dirs = Files.list(profiles)) {
        for (Path dir : dirs.sorted().toList()) {
          String name = dir.getFileName().toString();
          try {
            HarnessHome.Profile p = home.profile(name);
            var installed = PluginInstaller.installed(p);
            if (installed.isEmpty()) {
              add("profile " + name, true, "no plugins", null);
            }
            for (var m : installed.values()) {
              var report = PluginInstaller.reverify(p, m.id());
              add(name + "/" + m.id(), report.passed(), report.passed()
                  ? m.id() + " " + m.version() + " verified, sha256 " + report.sha256()
                  : String.join("; ", report.failures()),
                  "reinstall: harness plugin add --replace --profile " + name + " PACKAGE");
            }
            if (live == null && installed.containsKey("browser")) {
              live = name;
            }
          } catch (HarnessException e) {
            add("profile " + name, false, e.getMessage(), "reinstall with harness plugin add --replace");
          }
        }
      }
    }
    Path chromium = Stream.of("/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome")
        .map(Path::of).filter(Files::isExecutable).findFirst().orElse(null);
    add("chromium", chromium != null, chromium == null ? "not found" : chromium + " (" + version(chromium) + ")",
        "apt-get install -y chromium");
    if (live == null) {
      add("live check", false, "no profile has the browser plugin",
          "harness plugin add --profile P browser-plugin/target/periscope-browser-0.1.0.zip");
    } else {
      liveCheck(home, live);
    }
    long failed = checks.stream().filter(c -> !c.ok()).count();
    for (Check c : checks) {
      System.out.printf("%s %-16s  %s%n", c.ok() ? "[ok  ]" : "[FAIL]", c.label(), c.detail());
      if (!c.ok() && c.remedy() != null) {
        System.out.println("       → " + c.remedy());
      }
    }
    System.out.println(failed == 0 ? checks.size() + " checks passed." : failed + " of " + checks.size() + " checks failed.");
    return failed == 0 ? 0 : 1;
  }

  private void liveCheck(HarnessHome home, String profileName) throws IOException {
    Path project = Files.createTempDirectory("harness-doctor-");
    try {
      Files.createDirectories(project.resolve(".harness"));
      Files.writeString(ProjectConfig.fileOf(project),
          "plugins:\n  browser:\n    network: {mode: allowlist, allowCidrs: [\"127.0.0.1/32\"]}\n");
      try (DemoSite site = DemoSite.standard();
          Host host = Host.start(home, profileName, project, Host.Options.defaults())) {
        ToolResult r = host.call("doctor", "browser_open", Map.of("url", site.url("/")), Cancellation.none());
        host.endSession("doctor");
        add("live check", !r.isError(), r.isError() ? r.text() : "opened " + site.url("/") + " in profile " + profileName,
            "see the message above");
      } catch (HarnessException e) {
        add("live check", false, e.getMessage(), null);
      }
    } finally {
      PluginInstaller.deleteTree(project);
    }
  }

  private void add(String label, boolean ok, String detail, String remedy) {
    checks.add(new Check(label, ok, detail, remedy));
  }

  private static String version(Path chromium) {
    try {
      Process p = new ProcessBuilder(chromium.toString(), "--version").redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes()).trim();
      p.waitFor(10, TimeUnit.SECONDS);
      return out;
    } catch (IOException | InterruptedException e) {
      return "version unknown";
    }
  }
}
