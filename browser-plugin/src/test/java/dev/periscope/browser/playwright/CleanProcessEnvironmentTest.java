package dev.periscope.browser.playwright;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import dev.periscope.api.Cancellation;
import dev.periscope.api.PluginConfiguration;
import dev.periscope.api.browser.BrowserAction;
import dev.periscope.api.browser.ObservationBudget;
import dev.periscope.api.browser.Persistence;
import dev.periscope.api.browser.spi.BrowserEnvironment;
import dev.periscope.browser.BrowserSettings;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * From an attacker's side: what a process Periscope starts could read of the host's environment.
 * Surefire gives this JVM a canary credential and an AWS secret ({@code browser-plugin/pom.xml}),
 * as a host with an {@code env:} credential source would have; the test starts a real lane (the
 * Node.js driver and Chromium), finds every process it started among this JVM's descendants by pid,
 * and reads each one's {@code /proc/PID/environ}: no canary anywhere, every name on the allowlist
 * that {@code docs/security.md} documents, and HOME the lane's own directory.
 */
class CleanProcessEnvironmentTest {
  /** As surefire sets them in browser-plugin/pom.xml. */
  private static final Map<String, String> CANARIES =
      Map.of(
          "PERISCOPE_CANARY_CREDENTIAL", "canary-4f1c9e27b8d3a6051e7d",
          "AWS_SECRET_ACCESS_KEY", "canary-aws-Zq81xVb3Kp0TnR5mWy2L");

  /** The variables the driver may have: docs/security.md, "What the browser's processes see". */
  private static final Set<String> DRIVER_NAMES =
      Set.of(
          "PATH",
          "HOME",
          "TMPDIR",
          "LANG",
          "LANGUAGE",
          "TZ",
          "NODE_EXTRA_CA_CERTS",
          "NODE_OPTIONS",
          "DEBUG",
          "DEBUG_FILE",
          "BREAKPAD_DUMP_LOCATION",
          "PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD",
          "PLAYWRIGHT_NODEJS_PATH",
          "PLAYWRIGHT_DISABLE_FORCED_CHROMIUM_PROXIED_LOOPBACK",
          "PW_LANG_NAME",
          "PW_LANG_NAME_VERSION",
          "PW_CLI_DISPLAY_VERSION");

  /** LC_ALL, LC_CTYPE, ...: the locale. */
  private static final Pattern LOCALE = Pattern.compile("LC_[A-Z_]+");

  /**
   * What Chromium's own side adds: Debian's launcher script ({@code /usr/bin/chromium} and {@code
   * /etc/chromium.d}) and Chromium itself for its children. Set by them, never taken from the host:
   * the test checks that none of them holds the host's value.
   */
  private static final Set<String> CHROMIUM_OWN =
      Set.of(
          "CHROME_WRAPPER",
          "CHROME_DESKTOP",
          "CHROME_VERSION_EXTRA",
          "CHROMIUM_FLAGS",
          "GOOGLE_API_KEY",
          "GOOGLE_DEFAULT_CLIENT_ID",
          "GOOGLE_DEFAULT_CLIENT_SECRET");

  @Test
  void theDriverAndChromiumSeeNothingOfTheHostsEnvironmentButTheAllowlist() throws Exception {
    CANARIES.forEach(
        (name, value) ->
            assertEquals(value, System.getenv(name), "surefire did not give this JVM " + name));
    Set<Long> before =
        ProcessHandle.current().descendants().map(ProcessHandle::pid).collect(Collectors.toSet());
    HttpServer server =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext(
        "/",
        exchange -> {
          byte[] body = "<!doctype html><title>Page</title><p>hello</p>".getBytes();
          exchange.getResponseHeaders().set("Content-Type", "text/html; charset=utf-8");
          exchange.sendResponseHeaders(200, body.length);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
          }
        });
    server.start();
    PluginConfiguration config =
        LocalBrowser.withLoopback(Map.of("pool", Map.of("browsers", 1, "prelaunch", false)));
    PlaywrightProvider provider = new PlaywrightProvider(BrowserSettings.from(config).playwright());
    List<String> homes = new ArrayList<>();
    try (BrowserEnvironment env =
        provider.open(LocalBrowser.request(config, Persistence.EPHEMERAL), Cancellation.none())) {
      env.actions()
          .navigate(
              new BrowserAction.Navigate(
                  "http://127.0.0.1:" + server.getAddress().getPort() + "/"));
      assertTrue(env.observe(new ObservationBudget(400, 10)).text().contains("hello"));

      List<ProcessHandle> started =
          ProcessHandle.current().descendants().filter(p -> !before.contains(p.pid())).toList();
      int driver = 0;
      int renderers = 0;
      List<String> problems = new ArrayList<>();
      int chromiums = 0;
      int browsers = 0;
      Set<String> seen = new java.util.TreeSet<>();
      for (ProcessHandle p : started) {
        String raw = environ(p.pid());
        String cmdline = cmdline(p.pid());
        if (raw == null) {
          continue; // ended meanwhile
        }
        boolean isDriver = cmdline.contains("run-driver");
        driver += isDriver ? 1 : 0;
        renderers += cmdline.contains("--type=renderer") ? 1 : 0;
        String who = "pid " + p.pid() + " (" + shortened(cmdline) + ")";
        for (Map.Entry<String, String> canary : CANARIES.entrySet()) {
          if (raw.contains(canary.getValue())) {
            problems.add(who + " holds the canary of " + canary.getKey());
          }
        }
        Map<String, String> environ = variables(raw);
        if (environ != null && environ.isEmpty() && cmdline.contains("--type=zygote")) {
          // The headless shell's zygotes clear the memory their environment was first in when
          // they write their title there: nothing left to read (their children's are read).
          environ = null;
        }
        browsers += !isDriver && !cmdline.contains("--type=") && environ != null ? 1 : 0;
        if (environ == null) {
          // A child of Chromium's zygote writes its long title over the memory its environment
          // was first in, which is what /proc shows: its variables are the zygote's, read there.
          continue;
        }
        chromiums += isDriver ? 0 : 1;
        seen.addAll(environ.keySet());
        environ.forEach(
            (name, value) -> {
              boolean allowed =
                  DRIVER_NAMES.contains(name)
                      // The launcher's shell sets it to the directory it runs in.
                      || (!isDriver && name.equals("PWD") && value.equals(cwd(p.pid())))
                      || LOCALE.matcher(name).matches()
                      || (!isDriver
                          && CHROMIUM_OWN.contains(name)
                          && !value.equals(System.getenv(name)));
              if (!allowed) {
                problems.add(who + " has " + name + ", which is not on the allowlist");
              }
            });
        String home = environ.get("HOME");
        if (home == null) {
          problems.add(who + " has no HOME");
        } else {
          homes.add(home);
        }
      }
      assertEquals(1, driver, "the lane's one driver among " + started.size() + " processes");
      assertTrue(renderers > 0, "no renderer among the processes read");
      assertTrue(chromiums > 0, "no Chromium process whose variables could be read");
      assertEquals(1, browsers, "the browser process itself, read");
      System.out.println("the variables of the lane's processes: " + seen);
      assertTrue(problems.isEmpty(), String.join("\n", problems));
      Path tmp = Path.of(System.getProperty("java.io.tmpdir")).toRealPath();
      for (String home : homes) {
        assertNotEquals(System.getenv("HOME"), home, "the host's HOME");
        Path h = Path.of(home);
        assertTrue(Files.isDirectory(h), home + " is not a directory");
        assertTrue(
            h.toRealPath().startsWith(tmp)
                && h.getParent().getParent().getFileName().toString().startsWith("periscope-"),
            home + " is not a lane's own directory under its temp root");
      }
      assertEquals(1, Set.copyOf(homes).size(), "one HOME for the lane's processes: " + homes);
    } finally {
      provider.dispose();
      server.stop(0);
    }
    for (String home : Set.copyOf(homes)) {
      assertFalse(Files.exists(Path.of(home)), "the lane's HOME outlived it: " + home);
    }
  }

  @Test
  void ofTheHostsVariablesOnlyTheAllowlistAndTheDisplayWhenHeadedReachTheDriver(
      @org.junit.jupiter.api.io.TempDir Path lane) {
    Map<String, String> host =
        Map.of(
            "PATH", "/usr/bin:/bin",
            "HOME", "/home/alice",
            "LC_TIME", "de_DE.UTF-8",
            "DISPLAY", ":0",
            "XDG_RUNTIME_DIR", "/run/user/1000",
            "GITHUB_TOKEN", "canary-gh",
            "HTTPS_PROXY", "http://user:canary@proxy:3128",
            "SSH_AUTH_SOCK", "/tmp/ssh-agent");
    Map<String, String> headless =
        DriverStart.environment(
            Path.of("/usr/bin/node"), lane, true, java.util.Optional.empty(), "", host);
    Map<String, String> headed =
        DriverStart.environment(
            Path.of("/usr/bin/node"), lane, false, java.util.Optional.empty(), "", host);
    for (Map<String, String> env : List.of(headless, headed)) {
      assertEquals("/usr/bin:/bin", env.get("PATH"));
      assertEquals("de_DE.UTF-8", env.get("LC_TIME"));
      assertEquals(lane.resolve("home").toString(), env.get("HOME"));
      assertTrue(Files.isDirectory(lane.resolve("home")));
      assertEquals(lane.toString(), env.get("TMPDIR"));
      for (String name : List.of("GITHUB_TOKEN", "HTTPS_PROXY", "SSH_AUTH_SOCK")) {
        assertFalse(env.containsKey(name), name);
      }
      assertFalse(env.values().stream().anyMatch(v -> v.contains("canary")), env.toString());
    }
    assertFalse(headless.containsKey("DISPLAY"));
    assertFalse(headless.containsKey("XDG_RUNTIME_DIR"));
    assertEquals(":0", headed.get("DISPLAY"));
    assertEquals("/run/user/1000", headed.get("XDG_RUNTIME_DIR"));
  }

  /** What /proc shows of process {@code pid}'s environment, or null when it has ended. */
  private static String environ(long pid) {
    try {
      return new String(
          Files.readAllBytes(Path.of("/proc", Long.toString(pid), "environ")),
          StandardCharsets.UTF_8);
    } catch (java.nio.file.NoSuchFileException e) {
      return null;
    } catch (IOException e) {
      throw new java.io.UncheckedIOException("cannot read the environment of pid " + pid, e);
    }
  }

  private static final Pattern VARIABLE = Pattern.compile("([A-Za-z_][A-Za-z0-9_]*)=(.*)");

  /** The variables in {@code raw}, in order; null when it is not a list of them. */
  private static Map<String, String> variables(String raw) {
    Map<String, String> vars = new LinkedHashMap<>();
    for (String entry : raw.split("\0")) {
      if (entry.isEmpty()) {
        continue;
      }
      java.util.regex.Matcher m = VARIABLE.matcher(entry);
      if (!m.matches()) {
        return null;
      }
      vars.put(m.group(1), m.group(2));
    }
    return vars;
  }

  private static String cmdline(long pid) {
    try {
      return new String(
              Files.readAllBytes(Path.of("/proc", Long.toString(pid), "cmdline")),
              StandardCharsets.UTF_8)
          .replace('\0', ' ');
    } catch (IOException e) {
      return "";
    }
  }

  private static String cwd(long pid) {
    try {
      return Files.readSymbolicLink(Path.of("/proc", Long.toString(pid), "cwd")).toString();
    } catch (IOException e) {
      return "";
    }
  }

  private static String shortened(String cmdline) {
    return cmdline.length() > 80 ? cmdline.substring(0, 80) + "..." : cmdline;
  }
}
