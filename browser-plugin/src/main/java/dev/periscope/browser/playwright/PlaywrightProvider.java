package dev.periscope.browser.playwright;

import com.microsoft.playwright.BrowserContext;
import com.microsoft.playwright.Page;
import dev.periscope.api.Cancellation;
import dev.periscope.api.browser.BrowserEnvironment;
import dev.periscope.api.browser.BrowserException;
import dev.periscope.api.browser.ErrorCode;
import dev.periscope.api.browser.BrowserProvider;
import dev.periscope.api.browser.Capability;
import dev.periscope.browser.BrowserSettings;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Comparator;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The Playwright provider: each environment is an isolated BrowserContext with one page, on a system Chromium
 * driven by Playwright through the host's Node.js. Everything it makes on disk lives under one temp root that
 * {@link #dispose()} removes.
 */
public final class PlaywrightProvider implements BrowserProvider {
  public static final String ID = "playwright";
  private static final java.util.concurrent.atomic.AtomicInteger DRIVERS = new java.util.concurrent.atomic.AtomicInteger();

  private final BrowserSettings settings;
  private final Executables.Lookup chromium;
  private final Executables.Lookup node;
  private Path tempRoot;
  private PlaywrightDriver driver;

  public PlaywrightProvider(BrowserSettings settings) {
    this.settings = settings;
    this.chromium = Executables.chromium(settings.chromiumExecutable());
    this.node = Executables.node(settings.nodeExecutable());
  }

  @Override
  public String id() {
    return ID;
  }

  @Override
  public Set<Capability> capabilities() {
    return Set.of(Capability.SCREENSHOT);
  }

  @Override
  public boolean available() {
    return chromium.path().isPresent() && node.path().isPresent();
  }

  @Override
  public Optional<String> unavailableReason() {
    if (chromium.path().isEmpty()) {
      return Optional.of(chromium.reason());
    }
    return node.path().isEmpty() ? Optional.of(node.reason()) : Optional.empty();
  }

  @Override
  public Optional<String> version() {
    return Optional.of("playwright-" + com.microsoft.playwright.Playwright.class.getPackage().getImplementationVersion());
  }

  /** The Chromium executable this provider drives, when found. */
  public Optional<Path> chromiumPath() {
    return chromium.path();
  }

  /** Chromium's version string, launching the browser if needed. */
  public String chromiumVersion() {
    return driver().version();
  }

  @Override
  public BrowserEnvironment open(OpenRequest request, Cancellation cancellation) {
    cancellation.throwIfCancelled();
    PlaywrightDriver d = driver();
    try {
      return openContext(d);
    } catch (com.microsoft.playwright.PlaywrightException e) {
      throw new BrowserException(ErrorCode.BROWSER_PROVIDER_UNAVAILABLE, "Chromium could not be started: "
          + ChromiumLog.summary(e.getMessage()), e);
    }
  }

  private BrowserEnvironment openContext(PlaywrightDriver d) {
    return d.call(() -> {
      BrowserContext context = d.browser().newContext(new com.microsoft.playwright.Browser.NewContextOptions()
          .setViewportSize(settings.viewportWidth(), settings.viewportHeight()));
      try {
        context.setDefaultTimeout(settings.actionTimeoutMs());
        context.setDefaultNavigationTimeout(settings.navigationTimeoutMs());
        Page page = context.newPage();
        return new PlaywrightEnvironment(d, context, page);
      } catch (RuntimeException e) {
        context.close();
        throw e;
      }
    });
  }

  private synchronized PlaywrightDriver driver() {
    if (driver == null) {
      if (!available()) {
        throw new IllegalStateException(unavailableReason().orElse("unavailable"));
      }
      tempRoot = createTempRoot();
      driver = new PlaywrightDriver(chromium.path().get(), node.path().get(), tempRoot, settings.headless(), DRIVERS.incrementAndGet());
    }
    return driver;
  }

  /**
   * A short owner-only directory: Chromium puts a Unix socket a few levels below it, and socket paths must stay
   * under 108 bytes.
   */
  private static Path createTempRoot() {
    Path base = Path.of(System.getProperty("java.io.tmpdir"));
    java.security.SecureRandom random = new java.security.SecureRandom();
    for (int attempt = 0; ; attempt++) {
      Path dir = base.resolve("periscope-" + java.util.HexFormat.of().toHexDigits(random.nextInt()));
      try {
        return Files.createDirectory(dir,
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
      } catch (java.nio.file.FileAlreadyExistsException e) {
        if (attempt > 10) {
          throw new UncheckedIOException("cannot create the browser's temp directory in " + base, e);
        }
      } catch (IOException e) {
        throw new UncheckedIOException("cannot create the browser's temp directory in " + base, e);
      }
    }
  }

  @Override
  public synchronized void dispose() {
    try {
      if (driver != null) {
        driver.close();
      }
    } finally {
      driver = null;
      deleteTree(tempRoot);
      tempRoot = null;
    }
  }

  private static void deleteTree(Path root) {
    if (root == null || !Files.exists(root)) {
      return;
    }
    try (Stream<Path> files = Files.walk(root)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot remove the browser's temp directory " + root, e);
    }
  }
}
