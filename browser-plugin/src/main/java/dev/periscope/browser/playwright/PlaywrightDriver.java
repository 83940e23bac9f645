package dev.periscope.browser.playwright;

import com.microsoft.playwright.Browser;
import com.microsoft.playwright.BrowserType;
import com.microsoft.playwright.Playwright;
import com.microsoft.playwright.impl.PlaywrightImpl;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * One Playwright instance, its Node.js driver process and its Chromium, driven from one dedicated
 * thread: Playwright for Java is not thread-safe and dispatches its events only while a call runs
 * on its thread, so every use goes through {@link #call}. Each environment has its own driver, so
 * environments run in parallel, and one can be stopped mid-operation by {@link #kill()} without
 * touching the others.
 */
final class PlaywrightDriver implements AutoCloseable {
  private static final Object CREATE_LOCK = new Object();
  private static final long IDLE_PUMP_MS = 200;

  private final java.util.concurrent.ScheduledExecutorService thread;
  private final Path chromium;
  private final Path node;
  private final Path tempRoot;
  private final boolean headless;
  private Playwright playwright;
  private Browser browser;
  private volatile Optional<ProcessHandle> driverProcess = Optional.empty();

  /** Chromium's browser process, once launched: a kill reaches it even after the driver is gone. */
  private volatile Optional<ProcessHandle> browserProcess = Optional.empty();

  private volatile boolean killed;
  private volatile boolean closing;

  private final com.microsoft.playwright.options.Proxy proxy;

  PlaywrightDriver(
      Path chromium,
      Path node,
      Path tempRoot,
      boolean headless,
      int number,
      com.microsoft.playwright.options.Proxy proxy) {
    this.proxy = proxy;
    this.chromium = chromium;
    this.node = node;
    this.tempRoot = tempRoot;
    this.headless = headless;
    this.thread =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "periscope-playwright-" + number);
              t.setDaemon(true);
              return t;
            });
  }

  /**
   * Runs {@code pump} on the driver's thread every {@value #IDLE_PUMP_MS} ms between calls, so the
   * events Playwright would otherwise hold until the next call are delivered while the agent
   * thinks. A failing pump is ignored: the next real call reports what is wrong.
   */
  void whileIdle(Runnable pump) {
    thread.scheduleWithFixedDelay(
        () -> {
          if (!killed) {
            try {
              pump.run();
            } catch (RuntimeException e) {
              // the page or the driver went away; the next call says so
            }
          }
        },
        IDLE_PUMP_MS,
        IDLE_PUMP_MS,
        TimeUnit.MILLISECONDS);
  }

  /**
   * Runs work on the driver's thread and waits for it; the work's own exception is rethrown as is.
   */
  <T> T call(Callable<T> work) {
    return call(work, 0);
  }

  /**
   * Like {@link #call(Callable)}, but gives up after {@code timeoutMs} (when positive) and kills
   * the driver, so a hung browser cannot hold up a shutdown.
   */
  <T> T call(Callable<T> work, long timeoutMs) {
    Future<T> future = thread.submit(work);
    try {
      return timeoutMs > 0 ? future.get(timeoutMs, TimeUnit.MILLISECONDS) : future.get();
    } catch (java.util.concurrent.TimeoutException e) {
      kill();
      throw new IllegalStateException(
          "the browser did not answer within " + timeoutMs + " ms and was stopped");
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
   * The launched browser, started on first use. A failed launch closes its Playwright again, so a
   * retry starts clean and no driver process is left behind. Call on the driver's thread only.
   */
  Browser browser() {
    if (browser != null) {
      return browser;
    }
    Map<String, String> env =
        Map.of(
            "PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1",
            "PLAYWRIGHT_NODEJS_PATH", node.toString(),
            // Node and the Chromium it starts make their temporary profiles under TMPDIR: ours,
            // removed on close.
            "TMPDIR", tempRoot.toString(),
            // Playwright's debug log (DEBUG=pw:protocol, pw:api) would quote a credential fill's
            // value: it stays off
            // in the driver whatever the host's environment says.
            "DEBUG", "",
            "DEBUG_FILE", "",
            // Loopback goes through the policy proxy too; this switch would let Chromium bypass it.
            "PLAYWRIGHT_DISABLE_FORCED_CHROMIUM_PROXIED_LOOPBACK", "",
            // A crashed renderer's minidump holds its memory (a page's secrets among it).
            // Chromium's crash handler
            // writes it under $HOME whatever the switches say; here it goes under our temp root,
            // removed on close.
            "BREAKPAD_DUMP_LOCATION", tempRoot.resolve("crashes").toString());
    synchronized (CREATE_LOCK) {
      Set<Long> before = childPids();
      // Playwright extracts its JavaScript driver under this directory instead of the system temp
      // directory.
      System.setProperty("playwright.driver.tmpdir", tempRoot.toString());
      // Playwright.create() caches one driver directory per class loader for good; a fresh driver
      // instance
      // per Playwright keeps the directory ours, so it goes when this driver's temp root is
      // removed.
      playwright = PlaywrightImpl.createImpl(new Playwright.CreateOptions().setEnv(env), true);
      // The driver is the one new child of this JVM running our Node.js; kill() needs it.
      driverProcess =
          ProcessHandle.current()
              .children()
              .filter(p -> !before.contains(p.pid()) && runs(p, node))
              .findFirst();
    }
    if (killed) {
      // kill() came before the driver process was known: honour it now, before Chromium starts.
      kill();
      throw new CancellationException("the browser was stopped while it started");
    }
    List<String> args =
        new ArrayList<>(
            List.of(
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
                // QUIC and WebRTC's direct UDP would not go through the policy proxy.
                "--disable-quic",
                "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
                "--disable-default-apps",
                "--deny-permission-prompts"));
    if ("root".equals(System.getProperty("user.name"))) {
      args.add("--no-sandbox");
    }
    try {
      // The proxy is the browser's own as well as its context's: WebRTC honours only a browser-wide
      // proxy when it
      // decides which UDP is "non-proxied".
      browser =
          playwright
              .chromium()
              .launch(
                  new BrowserType.LaunchOptions()
                      .setProxy(proxy)
                      .setExecutablePath(chromium)
                      .setHeadless(headless)
                      .setArgs(args));
      // The driver's one child: Chromium's browser process (the launcher script execs it under the
      // same pid).
      browserProcess = driverProcess.flatMap(d -> d.children().findFirst());
    } catch (RuntimeException e) {
      try {
        playwright.close();
      } catch (RuntimeException closing) {
        e.addSuppressed(closing);
      }
      playwright = null;
      driverProcess = Optional.empty();
      throw e;
    }
    return browser;
  }

  /**
   * Stops everything at once, from any thread: Chromium and the Node.js driver are killed, so a
   * Playwright call that is running on the driver's thread fails instead of waiting. The driver is
   * unusable afterwards.
   */
  void kill() {
    killed = true;
    // Chromium first, with its own children: once the driver is gone they are no longer among its
    // descendants.
    browserProcess.ifPresent(PlaywrightDriver::destroyTree);
    driverProcess.ifPresent(PlaywrightDriver::destroyTree);
  }

  private static void destroyTree(ProcessHandle p) {
    p.descendants().forEach(ProcessHandle::destroyForcibly);
    p.destroyForcibly();
  }

  /**
   * Runs {@code exited} (on some other thread) when the Node.js driver process exits on its own:
   * not after {@link #kill()} and not while closing.
   */
  void onDriverExit(Runnable exited) {
    driverProcess.ifPresent(
        p ->
            p.onExit()
                .thenRun(
                    () -> {
                      if (!killed && !closing) {
                        exited.run();
                      }
                    }));
  }

  boolean killed() {
    return killed;
  }

  /** Whether the Node.js driver still runs (true before it started). */
  boolean driverRunning() {
    return driverProcess.map(PlaywrightDriver::running).orElse(true);
  }

  /** Waits up to {@code timeoutMs} for the Node.js driver to end; whether it has. */
  boolean awaitDriverExit(long timeoutMs) {
    return driverProcess
        .map(
            p -> {
              try {
                p.onExit().get(timeoutMs, TimeUnit.MILLISECONDS);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              } catch (java.util.concurrent.ExecutionException
                  | java.util.concurrent.TimeoutException e) {
                // judged by its state below
              }
              return !running(p);
            })
        .orElse(false);
  }

  /** Whether Chromium's browser process still runs (true before it started). */
  boolean browserRunning() {
    return browserProcess.map(PlaywrightDriver::running).orElse(true);
  }

  /**
   * Alive and not a zombie: an orphan that ended stays one until it is reaped, and ProcessHandle
   * calls it alive.
   */
  private static boolean running(ProcessHandle p) {
    if (!p.isAlive()) {
      return false;
    }
    try {
      String stat =
          java.nio.file.Files.readString(Path.of("/proc", Long.toString(p.pid()), "stat"));
      return stat.charAt(stat.lastIndexOf(')') + 2) != 'Z';
    } catch (java.io.IOException | RuntimeException e) {
      return true; // no /proc here: trust isAlive
    }
  }

  /** Closes the browser and Playwright, and waits for the driver's thread and processes to end. */
  @Override
  public void close() {
    closing = true;
    RuntimeException failure = null;
    try {
      call(
          () -> {
            try {
              // A killed driver cannot answer; asking would only make Playwright print its broken
              // pipe.
              if (browser != null && !killed) {
                browser.close();
              }
            } finally {
              if (playwright != null) {
                playwright.close();
              }
            }
            return null;
          });
    } catch (RuntimeException e) {
      // After kill() the connection is gone, and closing it fails: expected, not a failure to
      // report.
      failure = killed ? null : e;
    } finally {
      browser = null;
      playwright = null;
      thread.shutdown();
      try {
        if (!thread.awaitTermination(10, TimeUnit.SECONDS)) {
          kill();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      browserProcess.filter(ProcessHandle::isAlive).ifPresent(PlaywrightDriver::destroyTree);
      driverProcess.ifPresent(
          p -> {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            try {
              p.onExit().get(5, TimeUnit.SECONDS);
            } catch (Exception e) {
              p.destroyForcibly();
            }
          });
    }
    if (failure != null) {
      throw failure;
    }
  }

  private static Set<Long> childPids() {
    return ProcessHandle.current().children().map(ProcessHandle::pid).collect(Collectors.toSet());
  }

  private static boolean runs(ProcessHandle p, Path executable) {
    Optional<String> command = p.info().command();
    if (command.isEmpty()) {
      return true;
    }
    try {
      return Path.of(command.get()).toRealPath().equals(executable.toRealPath());
    } catch (java.io.IOException e) {
      return command.get().equals(executable.toString());
    }
  }
}
