package dev.periscope.browser.playwright;

import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * A {@link Lane}'s processes, as the operating system sees them: its Node.js driver and the
 * Chromium that driver launched. Kills them with their children, tells the lane's environments when
 * the driver exits, and says whether each still runs (a zombie does not).
 */
final class LaneProcesses {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(Lane.class);

  private volatile Optional<ProcessHandle> driver = Optional.empty();

  /** Chromium's browser process, once launched: a kill reaches it even after the driver is gone. */
  private volatile Optional<ProcessHandle> browser = Optional.empty();

  /** Whether the lane is closing: then the driver's exit is no news to its environments. */
  private final BooleanSupplier closing;

  /** The environments' listeners for the driver's exit; one watch on the process runs them all. */
  private final java.util.Set<Runnable> exitListeners =
      java.util.concurrent.ConcurrentHashMap.newKeySet();

  LaneProcesses(BooleanSupplier closing) {
    this.closing = closing;
  }

  /** The driver started as {@code process}: its exit is watched from now on. */
  void driverStarted(ProcessHandle process) {
    driver = Optional.of(process);
    process
        .onExit()
        .thenRun(
            () -> {
              if (!closing.getAsBoolean()) {
                exitListeners.forEach(Runnable::run);
              }
            });
  }

  /** Chromium was launched: the driver's one child (the launcher script execs it under its pid). */
  void browserLaunched() {
    browser = driver.flatMap(d -> d.children().findFirst());
  }

  /** A failed launch: the driver is stopped with its children, and forgotten. */
  void driverFailed() {
    driver.ifPresent(LaneProcesses::destroyTree);
    driver = Optional.empty();
  }

  boolean driverStarted() {
    return driver.isPresent();
  }

  /** The pids of Chromium and the driver, for the log; "?" for one not known. */
  String browserPid() {
    return browser.map(p -> Long.toString(p.pid())).orElse("?");
  }

  String driverPid() {
    return driver.map(p -> Long.toString(p.pid())).orElse("?");
  }

  /** Kills Chromium and the driver, each with its children. */
  void kill() {
    // Chromium first, with its own children: once the driver is gone they are no longer among its
    // descendants.
    browser.ifPresent(LaneProcesses::destroyTree);
    driver.ifPresent(LaneProcesses::destroyTree);
  }

  private static void destroyTree(ProcessHandle p) {
    p.descendants().forEach(ProcessHandle::destroyForcibly);
    p.destroyForcibly();
  }

  /** See {@link Lane#onDriverExit}. */
  Runnable onDriverExit(Runnable exited) {
    exitListeners.add(exited);
    if (!driverRunning() && !closing.getAsBoolean()) {
      exited.run();
    }
    return () -> exitListeners.remove(exited);
  }

  /** Whether the Node.js driver still runs (true before it started). */
  boolean driverRunning() {
    return driver.map(LaneProcesses::running).orElse(true);
  }

  /** Waits up to {@code timeoutMs} for the Node.js driver to end; whether it has. */
  boolean awaitDriverExit(long timeoutMs) {
    return driver
        .map(
            p -> {
              try {
                p.onExit().get(timeoutMs, TimeUnit.MILLISECONDS);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
                // judged by its state below
              }
              return !running(p);
            })
        .orElse(false);
  }

  /** Whether Chromium's browser process still runs (true before it started). */
  boolean browserRunning() {
    return browser.map(LaneProcesses::running).orElse(true);
  }

  /** As the lane closes: what is left of Chromium is stopped. */
  void stopBrowser() {
    browser.filter(ProcessHandle::isAlive).ifPresent(LaneProcesses::destroyTree);
  }

  /**
   * As lane {@code number} closes: the driver's children are stopped, and the driver, told to go,
   * given {@code exitMs} to exit before it is stopped too; whether it was stopped (and so may have
   * left an end of a Grid session on its way).
   */
  boolean stopDriver(int number, long exitMs) {
    if (driver.isEmpty()) {
      return false;
    }
    ProcessHandle p = driver.get();
    p.descendants().forEach(ProcessHandle::destroyForcibly);
    try {
      p.onExit().get(exitMs, TimeUnit.MILLISECONDS);
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      p.destroyForcibly();
      return true;
    } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
      LOG.warn(
          "browser lane {}: its driver did not exit within {} ms of being told to; stopped",
          number,
          exitMs);
      p.destroyForcibly();
      return true;
    }
  }

  /**
   * Alive and not a zombie: an orphan that ended stays one until it is reaped, and ProcessHandle
   * calls it alive.
   */
  static boolean running(ProcessHandle p) {
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
}
