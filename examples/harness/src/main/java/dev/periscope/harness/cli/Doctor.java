package dev.periscope.harness.cli;

import dev.periscope.api.Cancellation;
import dev.periscope.api.tool.ToolResult;
import dev.periscope.harness.HarnessException;
import dev.periscope.harness.demo.DemoSite;
import dev.periscope.harness.host.Host;
import dev.periscope.harness.profile.HarnessHome;
import dev.periscope.harness.profile.PluginInstaller;
import dev.periscope.harness.profile.ProjectConfig;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code harness doctor}: Java, the installed plugins, Chromium (present and starting), Node.js,
 * each profile's checkpoint store and the browser sessions whose last environment a fault ended, a
 * project's Selenium Grid ({@code --project}), and a live check that the browser plugin opens a
 * local page, checkpoints it and restores it. Each check prints {@code [ok ]}, {@code [warn]} or
 * {@code [FAIL]} with a remedy; any failure exits 1.
 */
@Command(
    name = "doctor",
    description =
        "Check Java, plugins, Chromium, Node.js, checkpoint stores, recent browser"
            + " faults, and a live page open.")
final class Doctor implements Callable<Integer> {
  @Option(
      names = "--profile",
      description =
          "only this profile, and the live check in it (default: every profile;"
              + " the live check in the first with the browser plugin)")
  String profile;

  @Option(
      names = "--no-live-check",
      description =
          "leave out the live check (a local page opened, acted on, checkpointed and restored in"
              + " two browsers: most of doctor's time)")
  boolean noLiveCheck;

  @Option(
      names = "--project",
      description =
          "also check this project's Selenium Grid, when its browser configuration names one"
              + " (reachable, nodes up, free Chrome slots, where the policy proxies listen)")
  Path project;

  private enum Level {
    INFO,
    OK,
    WARN,
    FAIL
  }

  private record Check(String label, Level level, String detail, String remedy) {}

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
          if (profile != null && !profile.equals(name)) {
            continue;
          }
          try {
            HarnessHome.Profile p = home.profile(name);
            var installed = PluginInstaller.installed(p);
            if (installed.isEmpty()) {
              add("profile " + name, true, "no plugins", null);
            }
            for (var m : installed.values()) {
              var report = PluginInstaller.reverify(p, m.id());
              add(
                  name + "/" + m.id(),
                  report.passed(),
                  report.passed()
                      ? m.id() + " " + m.version() + " verified, sha256 " + report.sha256()
                      : String.join("; ", report.failures()),
                  "reinstall: harness plugin add --replace --profile " + name + " PACKAGE");
            }
            if (installed.containsKey("browser")) {
              browserRecords(home, p);
              if (live == null) {
                live = name;
              }
            }
          } catch (HarnessException e) {
            add(
                "profile " + name,
                false,
                e.getMessage(),
                "reinstall with harness plugin add --replace");
          }
        }
      }
    }
    checkChromium();
    checkNode();
    if (project != null) {
      checkOutside(home, live);
    }
    if (noLiveCheck) {
      checks.add(new Check("live check", Level.INFO, "left out (--no-live-check)", null));
    } else if (live == null) {
      add(
          "live check",
          false,
          "no profile has the browser plugin",
          "harness plugin add --profile P browser-plugin/target/periscope-browser-0.1.0.zip");
    } else {
      liveCheck(home, live);
    }
    long failed = checks.stream().filter(c -> c.level() == Level.FAIL).count();
    for (Check c : checks) {
      System.out.printf(
          "%s %-16s  %s%n",
          switch (c.level()) {
            case INFO -> "[info]";
            case OK -> "[ok  ]";
            case WARN -> "[warn]";
            case FAIL -> "[FAIL]";
          },
          c.label(),
          c.detail());
      if (c.level() != Level.OK && c.level() != Level.INFO && c.remedy() != null) {
        System.out.println("       → " + c.remedy());
      }
    }
    long counted = checks.stream().filter(c -> c.level() != Level.INFO).count();
    System.out.println(
        failed == 0 ? counted + " checks passed." : failed + " of " + counted + " checks failed.");
    return failed == 0 ? 0 : 1;
  }

  /**
   * The profile's checkpoint store, and each browser session whose last environment a fault ended.
   */
  @SuppressWarnings("unchecked")
  private void browserRecords(HarnessHome home, HarnessHome.Profile p) {
    ToolResult check;
    try {
      check = Operations.run(home, p.name(), "browser_store_check", Map.of());
    } catch (RuntimeException e) {
      String message = String.valueOf(e.getMessage());
      add(
          "checkpoints " + p.name(),
          false,
          message,
          message.contains("cannot open storage domain")
              ? "the message says which file; move it aside and the browser sessions start fresh"
              : null);
      return;
    }
    Map<String, Object> store = (Map<String, Object>) check.structured().get("store");
    add(
        "checkpoints " + p.name(),
        Boolean.TRUE.equals(store.get("ok")),
        (String) store.get("detail"),
        (String) store.get("remedy"));
    journal(p, check);
    for (Object o : (List<Object>) check.structured().get("faults")) {
      Map<String, Object> f = (Map<String, Object>) o;
      checks.add(
          new Check(
              "fault " + p.name(),
              Level.WARN,
              session(f)
                  + ": its last browser ended by a fault at "
                  + f.get("at")
                  + ": "
                  + f.get("cause")
                  + " ("
                  + f.get("code")
                  + ")"
                  + (f.get("url") == null ? "" : " on " + f.get("url")),
              "nothing to repair: its next call continues from its last checkpoint; if it keeps happening, run with"
                  + " HARNESS_LOG=debug and see harness transitions --profile "
                  + p.name()
                  + " --session "
                  + f.get("browser_session")));
    }
  }

  /** "browser session ID (agent session A, B)" of a fault or journal row of the store check. */
  @SuppressWarnings("unchecked")
  private static String session(Map<String, Object> row) {
    List<String> agents = (List<String>) row.get("agent_sessions");
    return "browser session "
        + row.get("browser_session")
        + (agents.isEmpty() ? "" : " (agent session " + String.join(", ", agents) + ")");
  }

  /**
   * Each browser session's last journal events (faults, recoveries, challenges), newest first:
   * information, not a check.
   */
  @SuppressWarnings("unchecked")
  private void journal(HarnessHome.Profile p, ToolResult check) {
    Object events = check.structured().get("journal");
    if (!(events instanceof List<?> list)) {
      return;
    }
    for (Object o : list) {
      Map<String, Object> e = (Map<String, Object>) o;
      checks.add(
          new Check(
              "journal " + p.name(),
              Level.INFO,
              session(e)
                  + ": "
                  + e.get("kind")
                  + " at "
                  + e.get("at")
                  + (e.get("cause") == null ? "" : " (" + e.get("cause") + ")")
                  + (e.get("url") == null ? "" : " on " + e.get("url")),
              null));
    }
  }

  /**
   * What the project's browsers run on outside this host, as the browser plugin of {@code
   * profileName} finds it with its operator tools, on one host: its Selenium Grid ({@code grid})
   * and the running Chromium it attaches to ({@code cdp}).
   */
  @SuppressWarnings("unchecked")
  private void checkOutside(HarnessHome home, String profileName) {
    Map<String, String> none = new java.util.LinkedHashMap<>();
    none.put("grid", "names no Selenium Grid");
    none.put("cdp", "names no running Chromium to attach to");
    if (profileName == null) {
      none.keySet()
          .forEach(key -> add(key, false, "no profile has the browser plugin to ask", null));
      return;
    }
    if (!Files.isDirectory(project)) {
      none.keySet()
          .forEach(
              key ->
                  add(
                      key,
                      false,
                      "no project directory " + project,
                      "give --project an existing directory"));
      return;
    }
    List<dev.periscope.api.tool.ToolResult> results;
    try {
      results =
          Operations.runAll(
              home,
              profileName,
              project,
              none.keySet().stream().map(key -> "browser_" + key + "_check").toList(),
              Map.of());
    } catch (RuntimeException e) {
      none.keySet().forEach(key -> add(key, false, String.valueOf(e.getMessage()), null));
      return;
    }
    int i = 0;
    for (Map.Entry<String, String> check : none.entrySet()) {
      Map<String, Object> found =
          (Map<String, Object>) results.get(i++).structured().get(check.getKey());
      if (!Boolean.TRUE.equals(found.get("configured"))) {
        add(check.getKey(), true, "project " + project + " " + check.getValue(), null);
      } else {
        add(
            check.getKey(),
            Boolean.TRUE.equals(found.get("ok")),
            (String) found.get("detail"),
            (String) found.get("remedy"));
      }
    }
  }

  /**
   * Chromium is there, and starts headless (it renders an empty page and exits); so does Chromium's
   * headless shell, which the browser plugin runs for headless browsers when it is installed (its
   * own binary, as the plugin looks for it: Debian's launcher on the PATH does not exec it).
   */
  private void checkChromium() {
    Optional<Path> chromium =
        Stream.of("chromium", "chromium-browser", "google-chrome")
            .map(Doctor::onPath)
            .flatMap(Optional::stream)
            .findFirst();
    if (chromium.isEmpty()) {
      add(
          "chromium",
          false,
          "not found on the PATH (chromium, chromium-browser, google-chrome)",
          "apt-get install -y chromium");
    } else {
      checkStarts("chromium", chromium.get(), "");
    }
    Path shell = Path.of("/usr/lib/chromium/chromium-headless-shell");
    if (Files.isExecutable(shell)) {
      checkStarts("headless shell", shell, ", runs the headless browsers");
    } else {
      checks.add(
          new Check(
              "headless shell",
              Level.INFO,
              "not installed: headless browsers run "
                  + chromium.map(Path::toString).orElse("the browser")
                  + " (apt-get install -y chromium-headless-shell runs them on about half the CPU"
                  + " per page)",
              null));
    }
  }

  /**
   * The Chromium at {@code binary} starts headless: it renders an empty page and exits. {@code
   * role} follows its version in the row.
   */
  private void checkStarts(String label, Path binary, String role) {
    // Debian's launcher script may say something of its own first; the version is the line that
    // names Chromium.
    String version =
        run(List.of(binary.toString(), "--version"), 30)
            .flatMap(out -> out.lines().filter(l -> l.contains("Chrom")).reduce((a, b) -> b))
            .orElse("version unknown")
            .strip();
    Path profileDir = null;
    try {
      profileDir = Files.createTempDirectory("harness-doctor-chromium-");
      List<String> command =
          new ArrayList<>(
              List.of(
                  binary.toString(),
                  "--headless",
                  "--disable-gpu",
                  "--disable-background-networking",
                  "--disable-component-update",
                  "--disable-sync",
                  "--no-first-run",
                  "--user-data-dir=" + profileDir,
                  "--dump-dom",
                  "about:blank"));
      if ("root".equals(System.getProperty("user.name"))) {
        command.add(1, "--no-sandbox");
      }
      long start = System.nanoTime();
      Optional<String> dom = run(command, 60);
      long ms = (System.nanoTime() - start) / 1_000_000;
      boolean started = dom.isPresent() && dom.get().contains("<html");
      add(
          label,
          started,
          binary
              + " ("
              + version
              + ")"
              + role
              + (started
                  ? ", starts headless in " + ms + " ms"
                  : ", but did not start headless: "
                      + dom.map(Doctor::lastLine).orElse("no answer within 60 s")),
          "run it by hand to see why: " + String.join(" ", command));
    } catch (IOException e) {
      add(label, false, "cannot make a temporary profile: " + e.getMessage(), "check TMPDIR");
    } finally {
      if (profileDir != null) {
        PluginInstaller.deleteTree(profileDir);
      }
    }
  }

  /** Node.js 18 or newer runs the browser's driver: PLAYWRIGHT_NODEJS_PATH, or node on the PATH. */
  private void checkNode() {
    String configured = System.getenv("PLAYWRIGHT_NODEJS_PATH");
    Optional<Path> node =
        configured != null && !configured.isBlank()
            ? Optional.of(Path.of(configured))
            : onPath("node").or(() -> onPath("nodejs"));
    if (node.isEmpty()) {
      add("node.js", false, "not found on the PATH", "apt-get install -y nodejs");
      return;
    }
    Optional<String> version =
        run(List.of(node.get().toString(), "--version"), 30).map(String::strip);
    int major =
        version
            .filter(v -> v.matches("v\\d+\\..*"))
            .map(v -> Integer.parseInt(v.substring(1, v.indexOf('.'))))
            .orElse(0);
    add(
        "node.js",
        major >= 18,
        node.get()
            + " ("
            + version.orElse("no version")
            + ")"
            + (major >= 18 ? "" : "; the browser's driver needs Node.js 18 or newer"),
        "apt-get install -y nodejs (18 or newer)");
  }

  /**
   * The browser plugin drives Chromium through its driver: it opens a local page, takes an action
   * (its checkpoint is written), and a second host restores that session. The check's own records
   * are removed afterwards.
   */
  private void liveCheck(HarnessHome home, String profileName) throws IOException {
    Path project = Files.createTempDirectory("harness-doctor-");
    try {
      Files.createDirectories(project.resolve(".harness"));
      Files.writeString(
          ProjectConfig.fileOf(project),
          "plugins:\n  browser:\n    network: {mode: allowlist, allowCidrs: [\"127.0.0.1/32\"]}\n");
      try (DemoSite site = DemoSite.standard()) {
        String opened;
        try (Host host = Host.start(home, profileName, project, Host.Options.defaults())) {
          ToolResult r =
              host.call(
                  "doctor", "browser_open", Map.of("url", site.url("/")), Cancellation.none());
          if (r.isError()) {
            add(
                "live check",
                false,
                r.text(),
                "see the message above; harness doctor's chromium and node.js lines"
                    + " say whether either is missing");
            return;
          }
          opened = "opened " + site.url("/") + " in profile " + profileName;
          ToolResult click =
              host.call(
                  "doctor", "browser_click", target(r, "Show the answer"), Cancellation.none());
          host.endSession("doctor");
          if (click.isError()) {
            add(
                "live check",
                false,
                opened + ", but could not act on it: " + lastLine(click.text()),
                null);
            return;
          }
        }
        try (Host host = Host.start(home, profileName, project, Host.Options.defaults())) {
          ToolResult restored =
              host.call("doctor", "browser_observe", Map.of(), Cancellation.none());
          host.call("doctor", "browser_reset", Map.of(), Cancellation.none());
          host.endSession("doctor");
          add(
              "live check",
              !restored.isError(),
              restored.isError()
                  ? opened
                      + ", but its checkpoint could not be restored: "
                      + lastLine(restored.text())
                  : opened + ", acted on it, checkpointed and restored it",
              "check the profile's checkpoint store (the checkpoints line above)");
        }
      } catch (HarnessException e) {
        add("live check", false, e.getMessage(), null);
      } finally {
        try (Host host =
            Host.start(home, profileName, project, Host.Options.defaults().forOperators())) {
          host.operate("browser_forget_project", Map.of());
        } catch (RuntimeException e) {
          // the check's failure above says why no host started
        }
      }
    } finally {
      PluginInstaller.deleteTree(project);
    }
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> target(ToolResult r, String name) {
    Map<String, Object> observation =
        (Map<String, Object>) ((Map<String, Object>) r.structured()).get("observation");
    for (Object e : (List<Object>) observation.get("elements")) {
      Map<String, Object> element = (Map<String, Object>) e;
      if (name.equals(element.get("name"))) {
        return Map.of("observation_id", observation.get("id"), "element_ref", element.get("ref"));
      }
    }
    return Map.of("observation_id", observation.get("id"), "element_ref", "e1");
  }

  private void add(String label, boolean ok, String detail, String remedy) {
    checks.add(new Check(label, ok ? Level.OK : Level.FAIL, detail, remedy));
  }

  /** As the browser plugin looks: the PATH, then /usr/bin. */
  private static Optional<Path> onPath(String name) {
    String path =
        Optional.ofNullable(System.getenv("PATH")).orElse("") + File.pathSeparator + "/usr/bin";
    return Stream.of(path.split(File.pathSeparator))
        .filter(dir -> !dir.isEmpty())
        .map(dir -> Path.of(dir, name))
        .filter(Files::isExecutable)
        .findFirst();
  }

  /**
   * Runs a command and returns its output, or nothing when it failed to run or did not end in time.
   */
  private static Optional<String> run(List<String> command, int seconds) {
    Process p = null;
    try {
      p =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
              .start();
      Process started = p;
      var output =
          java.util.concurrent.CompletableFuture.supplyAsync(
              () -> {
                try {
                  return new String(
                      started.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                } catch (IOException e) {
                  return "";
                }
              });
      if (!p.waitFor(seconds, TimeUnit.SECONDS)) {
        return Optional.empty();
      }
      return Optional.of(output.get(5, TimeUnit.SECONDS));
    } catch (Exception e) {
      return Optional.empty();
    } finally {
      if (p != null) {
        p.descendants().forEach(ProcessHandle::destroyForcibly);
        p.destroyForcibly();
      }
    }
  }

  private static String lastLine(String text) {
    return text.strip().lines().reduce((first, last) -> last).orElse("");
  }
}
