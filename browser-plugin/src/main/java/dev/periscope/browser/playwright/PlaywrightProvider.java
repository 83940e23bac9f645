package dev.periscope.browser.playwright;

import com.microsoft.playwright.BrowserContext;
import com.microsoft.playwright.Page;
import dev.periscope.api.Cancellation;
import dev.periscope.api.browser.BrowserEnvironment;
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
      try {
        tempRoot = Files.createTempDirectory("periscope-browser-",
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
      } catch (IOException e) {
        throw new UncheckedIOException("cannot create the browser's temp directory", e);
      }
      driver = new PlaywrightDriver(chromium.path().get(), node.path().get(), tempRoot, settings.headless(), DRIVERS.incrementAndGet());
    }
    return driver;
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
