package dev.periscope.browser.playwright;

import com.microsoft.playwright.impl.BoundedConnection;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * How a {@link Lane}'s Node.js driver starts: the environment it is given, the driver files it runs
 * (unpacked once for every lane, with a code cache, else afresh under the lane's temp root), and a
 * second try without the code cache when the first fails.
 */
final class DriverStart {
  private static final Object CREATE_LOCK = new Object();
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(Lane.class);

  /** Where Playwright unpacks a driver it creates (else the system temp directory). */
  private static final String DRIVER_TMPDIR = "playwright.driver.tmpdir";

  private DriverStart() {}

  /**
   * Starts a driver that runs on {@code node} with its temporary files and its HOME under {@code
   * tempRoot} and the {@link #environment} of a lane whose Chromium runs {@code headless}; for a
   * grid lane, told where the Grid is and the tag of the lane's sessions; from {@code unpacked}
   * (with its code cache) when Playwright's driver was unpacked for every lane. {@code killed} says
   * whether the lane was killed meanwhile: then no second try.
   */
  static BoundedConnection start(
      Path node,
      Path tempRoot,
      boolean headless,
      Optional<GridSettings> grid,
      String gridTag,
      Optional<Path> unpacked,
      BooleanSupplier killed) {
    Map<String, String> env = environment(node, tempRoot, headless, grid, gridTag, System.getenv());
    if (unpacked.isPresent()) {
      Optional<Path> preload = unpacked.flatMap(DriverFiles::codeCacheScript);
      try {
        return BoundedConnection.start(unpacked, preload, env);
      } catch (RuntimeException withCache) {
        if (preload.isEmpty() || killed.getAsBoolean()) {
          throw withCache;
        }
        // The code cache is only a saving: a driver that does not start with it starts without.
        LOG.warn(
            "Playwright's driver did not start with its code cache ({}); starting it without",
            ChromiumLog.summary(String.valueOf(withCache.getMessage())));
        return BoundedConnection.start(unpacked, Optional.empty(), env);
      }
    }
    // A fresh driver instance per lane, unpacked under the lane's temp root, keeps the directory
    // ours, so it goes when the temp root is removed.
    return unpackingUnder(
        tempRoot, () -> BoundedConnection.start(Optional.empty(), Optional.empty(), env));
  }

  /**
   * Of the host's environment, what the driver and the Chromium it launches see: the search path,
   * the locale ({@code LC_*} as well), the time zone, and the CA certificates Node.js is told to
   * trust. docs/security.md lists them; CleanProcessEnvironmentTest holds them to it.
   */
  static final java.util.Set<String> FROM_HOST =
      java.util.Set.of("PATH", "LANG", "LANGUAGE", "TZ", "NODE_EXTRA_CA_CERTS");

  /** And, only when Chromium runs headed on this machine, what it needs to open its windows. */
  static final java.util.Set<String> FROM_HOST_HEADED =
      java.util.Set.of("DISPLAY", "WAYLAND_DISPLAY", "XAUTHORITY", "XDG_RUNTIME_DIR");

  /** Whether the host's variable {@code name} reaches the driver and Chromium. */
  static boolean fromHost(String name, boolean headless) {
    return FROM_HOST.contains(name)
        || name.startsWith("LC_")
        || (!headless && FROM_HOST_HEADED.contains(name));
  }

  /**
   * The driver's whole environment, which Chromium inherits: of the host's ({@code host}) only what
   * {@link #fromHost} admits, never a credential or anything else it holds; a HOME of the lane's
   * own under its temp root (created here, removed with the root), so that nothing Chromium or
   * Node.js keep under HOME is the user's or outlives the lane; and Playwright's variables.
   */
  static Map<String, String> environment(
      Path node,
      Path tempRoot,
      boolean headless,
      Optional<GridSettings> grid,
      String gridTag,
      Map<String, String> host) {
    Map<String, String> env = new java.util.HashMap<>();
    host.forEach(
        (name, value) -> {
          if (fromHost(name, headless)) {
            env.put(name, value);
          }
        });
    Path home = tempRoot.resolve("home");
    try {
      java.nio.file.Files.createDirectories(home);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException("cannot create the browser's home " + home, e);
    }
    env.put("HOME", home.toString());
    String hostHome = host.get("HOME");
    if (!headless && !env.containsKey("XAUTHORITY") && hostHome != null) {
      // X's cookie is found under HOME unless XAUTHORITY says where: the user's, for their display.
      Path cookie = Path.of(hostHome, ".Xauthority");
      if (java.nio.file.Files.isReadable(cookie)) {
        env.put("XAUTHORITY", cookie.toString());
      }
    }
    env.putAll(
        Map.of(
            "PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1",
            "PLAYWRIGHT_NODEJS_PATH", node.toString(),
            // Node and the Chromium it starts make their temporary profiles under TMPDIR: ours,
            // removed on close.
            "TMPDIR", tempRoot.toString(),
            // Playwright's debug log (DEBUG=pw:protocol, pw:api) would quote a credential
            // fill's value: it stays off in the driver whatever the host's environment says.
            "DEBUG", "",
            "DEBUG_FILE", "",
            // Loopback goes through the policy proxy too; this switch would let Chromium bypass
            // it.
            "PLAYWRIGHT_DISABLE_FORCED_CHROMIUM_PROXIED_LOOPBACK", "",
            // A crashed renderer's minidump holds its memory (a page's secrets among it).
            // Chromium's crash handler writes it under $HOME whatever the switches say; here it
            // goes under our temp root, removed on close.
            "BREAKPAD_DUMP_LOCATION", tempRoot.resolve("crashes").toString(),
            // A promise the driver leaves unhandled (seen: dismissing a dialog of a page whose
            // context an abort closed) would end the driver, and every session on this lane
            // with it: it is a warning instead.
            "NODE_OPTIONS", "--unhandled-rejections=warn"));
    grid.ifPresent(
        g -> {
          // Playwright's driver opens each browser as a session on this Grid, and speaks to it
          // through the Grid's CDP endpoint.
          env.put("SELENIUM_REMOTE_URL", g.url().toString());
          env.put(
              "SELENIUM_REMOTE_CAPABILITIES",
              new com.google.gson.Gson().toJson(Map.of(Lane.GRID_TAG, gridTag)));
          if (!g.headers().isEmpty()) {
            env.put("SELENIUM_REMOTE_HEADERS", new com.google.gson.Gson().toJson(g.headers()));
          }
        });
    return env;
  }

  /**
   * Runs {@code create}, which unpacks a Playwright driver, with Playwright's driver directory set
   * to {@code dir} instead of the system temp directory, one at a time; the setting is put back
   * afterwards, so that no later Playwright of the host is sent to a directory since removed.
   */
  static <T> T unpackingUnder(Path dir, Supplier<T> create) {
    synchronized (CREATE_LOCK) {
      String before = System.getProperty(DRIVER_TMPDIR);
      System.setProperty(DRIVER_TMPDIR, dir.toString());
      try {
        return create.get();
      } finally {
        if (before == null) {
          System.clearProperty(DRIVER_TMPDIR);
        } else {
          System.setProperty(DRIVER_TMPDIR, before);
        }
      }
    }
  }
}
