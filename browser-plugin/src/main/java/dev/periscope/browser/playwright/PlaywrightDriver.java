package dev.periscope.browser.playwright;

import com.microsoft.playwright.Browser;
import com.microsoft.playwright.BrowserType;
import com.microsoft.playwright.Playwright;
import com.microsoft.playwright.impl.PlaywrightImpl;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * One Playwright instance, its Node.js driver process and its Chromium, driven from one dedicated thread:
 * Playwright for Java is not thread-safe and dispatches its events only while a call runs on its thread.
 * Every use goes through {@link #call}.
 */
final class PlaywrightDriver implements AutoCloseable {
  private static final Object DRIVER_DIRECTORY_LOCK = new Object();

  private final ExecutorService thread;
  private final Path chromium;
  private final Path node;
  private final Path tempRoot;
  private final boolean headless;
  private Playwright playwright;
  private Browser browser;

  PlaywrightDriver(Path chromium, Path node, Path tempRoot, boolean headless, int number) {
    this.chromium = chromium;
    this.node = node;
    this.tempRoot = tempRoot;
    this.headless = headless;
    this.thread = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "periscope-playwright-" + number);
      t.setDaemon(true);
      return t;
    });
  }

  /** Runs work on the driver's thread and waits for it; the work's own exception is rethrown as is. */
  <T> T call(Callable<T> work) {
    Future<T> future = thread.submit(work);
    try {
      return future.get();
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      if (e.getCause() instanceof Error err) {
        throw err;
      }
      throw new IllegalStateException(e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while the browser worked", e);
    }
  }

  /**
   * The launched browser, started on first use. A failed launch closes its Playwright again, so a retry starts
   * clean and no driver process is left behind. Call on the driver's thread only.
   */
  Browser browser() {
    if (browser != null) {
      return browser;
    }
    Map<String, String> env = Map.of(
        "PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1",
        "PLAYWRIGHT_NODEJS_PATH", node.toString(),
        // Node and the Chromium it starts make their temporary profiles under TMPDIR: ours, removed on dispose.
        "TMPDIR", tempRoot.toString());
    synchronized (DRIVER_DIRECTORY_LOCK) {
      // Playwright extracts its JavaScript driver under this directory instead of the system temp directory.
      System.setProperty("playwright.driver.tmpdir", tempRoot.toString());
      // Playwright.create() caches one driver directory per class loader for good; a fresh driver instance
      // per Playwright keeps the directory ours, so it goes when this provider's temp root is removed.
      playwright = PlaywrightImpl.createImpl(new Playwright.CreateOptions().setEnv(env), true);
    }
    List<String> args = new ArrayList<>(List.of(
        "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
        "--disable-default-apps", "--disable-quic"));
    if ("root".equals(System.getProperty("user.name"))) {
      args.add("--no-sandbox");
    }
    try {
      browser = playwright.chromium().launch(new BrowserType.LaunchOptions()
          .setExecutablePath(chromium).setHeadless(headless).setArgs(args));
    } catch (RuntimeException e) {
      try {
        playwright.close();
      } catch (RuntimeException closing) {
        e.addSuppressed(closing);
      }
      playwright = null;
      throw e;
    }
    return browser;
  }

  /** The Chromium version, launching it if needed. */
  String version() {
    return call(() -> browser().version());
  }

  @Override
  public void close() {
    try {
      call(() -> {
        RuntimeException failure = null;
        try {
          if (browser != null) {
            browser.close();
          }
        } catch (RuntimeException e) {
          failure = e;
        }
        try {
          if (playwright != null) {
            playwright.close();
          }
        } catch (RuntimeException e) {
          if (failure == null) {
            failure = e;
          } else {
            failure.addSuppressed(e);
          }
        }
        browser = null;
        playwright = null;
        if (failure != null) {
          throw failure;
        }
        return null;
      });
    } finally {
      thread.shutdown();
      try {
        thread.awaitTermination(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
