package dev.periscope.browser.playwright;

import com.microsoft.playwright.Browser;
import dev.periscope.api.browser.spi.EnvironmentFault;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * What an environment notices of its browser's death, and tells the runtime once: Chromium's
 * disconnection, the driver's exit, a renderer's crash ({@link #watch}), and a failed call that
 * shows one of them before its event arrives ({@link #noticeDeath}). Nothing counts once the
 * environment is closing or was aborted. A Grid node's drain is told apart ({@link #retire}).
 */
final class EnvironmentFaults {
  private final Lane lane;

  /** Whether the environment is closing or was aborted. */
  private final BooleanSupplier ending;

  /** The first fault this environment noticed, and the runtime's listener for it. */
  private final AtomicReference<EnvironmentFault> fault = new AtomicReference<>();

  private volatile Consumer<EnvironmentFault> listener;
  private final AtomicBoolean delivered = new AtomicBoolean();

  /** Hears of the shared browser's disconnection; removed when the environment closes. */
  final Consumer<Browser> disconnected =
      b -> fault(EnvironmentFault.Cause.BROWSER_EXITED, "Chromium exited");

  EnvironmentFaults(Lane lane, BooleanSupplier ending) {
    this.lane = lane;
    this.ending = ending;
  }

  /**
   * Watches {@code browser}'s disconnection and the lane's driver; what it returns removes the
   * driver's watch. Death, noticed as it happens: Playwright's events arrive while a call runs or
   * the lane pumps them between calls; the driver process is watched by the JVM.
   */
  Runnable watch(Browser browser) {
    browser.onDisconnected(disconnected);
    return lane.onDriverExit(
        () -> fault(EnvironmentFault.Cause.DRIVER_EXITED, "the browser's driver (Node.js) exited"));
  }

  /** A fault this environment noticed itself; nothing counts once it is closing or was aborted. */
  void fault(EnvironmentFault.Cause cause, String detail) {
    if (ending.getAsBoolean()) {
      return;
    }
    fault.compareAndSet(null, new EnvironmentFault(cause, detail));
    deliver();
  }

  private void deliver() {
    var listening = listener;
    var noticed = fault.get();
    if (listening != null && noticed != null && delivered.compareAndSet(false, true)) {
      listening.accept(noticed);
    }
  }

  /** The runtime's listener; a fault noticed before it came is delivered now. */
  void onFault(Consumer<EnvironmentFault> listener) {
    this.listener = listener;
    deliver();
  }

  /**
   * Its place is being taken out of service while it still works (its Grid node drains): the
   * runtime moves the session once no call runs on this environment ({@link
   * EnvironmentFault.Cause#RETIRING}); false when nobody listens yet, or it is ending.
   */
  boolean retire(String detail) {
    // Not the one fault this environment reports: a crash after it must still be heard.
    var listening = listener;
    if (listening == null || ending.getAsBoolean()) {
      return false;
    }
    listening.accept(new EnvironmentFault(EnvironmentFault.Cause.RETIRING, detail));
    return true;
  }

  /**
   * After a failed call: a driver, browser or renderer that died is a fault now, before its event
   * arrives (the driver's exit is seen by another thread; Chromium's and the renderer's reach Java
   * after the failure).
   */
  void noticeDeath(RuntimeException failure) {
    String message = String.valueOf(failure.getMessage());
    if (!lane.driverRunning()) {
      fault(EnvironmentFault.Cause.DRIVER_EXITED, "the browser's driver (Node.js) exited");
    } else if (connectionLost(message)) {
      // The pipe to the driver closes while its process is still exiting: no call can reach this
      // browser again, whether or not the process is gone yet.
      fault(
          EnvironmentFault.Cause.DRIVER_EXITED,
          lane.awaitDriverExit(DRIVER_EXIT_WAIT_MS)
              ? "the browser's driver (Node.js) exited"
              : "the connection to the browser's driver (Node.js) closed");
    } else if (!lane.browserRunning()) {
      fault(EnvironmentFault.Cause.BROWSER_EXITED, "Chromium exited");
    } else if (String.valueOf(failure.getMessage()).startsWith("Target crashed")) {
      fault(EnvironmentFault.Cause.PAGE_CRASHED, "the page's renderer crashed");
    }
  }

  /** How long a failure that lost the driver's connection waits to see the driver's process end. */
  private static final long DRIVER_EXIT_WAIT_MS = 2_000;

  /** Playwright's words for a connection to its driver that is gone for good. */
  static boolean connectionLost(String message) {
    String m = message.toLowerCase(java.util.Locale.ROOT);
    return m.contains("pipe closed") || m.contains("playwright connection closed");
  }
}
