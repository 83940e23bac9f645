package dev.periscope.browser.playwright;

import dev.periscope.api.Cancellation;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * The running browsers that environments share: at most {@code size} lanes, each a driver and its
 * Chromium ({@link Lane}). An environment is a context on one lane. A new environment takes an
 * empty lane, else starts a new one while there are fewer than {@code size}, else shares the least
 * occupied. A lane whose driver or browser died takes no one new and is closed when its last
 * environment leaves.
 */
final class BrowserPool {
  private static final long LAUNCH_TIMEOUT_MS = 120_000;

  private final int size;
  private final Supplier<Path> tempRoot;
  private final Path chromium;
  private final Path node;
  private final boolean headless;
  private final Supplier<java.util.Optional<Path>> driverFiles;
  private final List<Started> lanes = new ArrayList<>();

  /** The Grid whose browsers the lanes open, one per environment; empty: Chromium here. */
  private final java.util.Optional<GridSettings> grid;

  /** Whether its lanes attach to a Chromium the user runs instead of launching their own. */
  private final boolean attaching;

  private int launched;
  private boolean closed;

  private record Started(Lane lane, Future<?> launch) {}

  private final java.util.function.Function<com.microsoft.playwright.Browser, PreparedContext>
      spares;

  /**
   * A pool of at most {@code size} lanes, each making a context ready ahead of need with {@code
   * spares}.
   */
  BrowserPool(
      int size,
      Supplier<Path> tempRoot,
      Path chromium,
      Path node,
      boolean headless,
      Supplier<java.util.Optional<Path>> driverFiles,
      java.util.function.Function<com.microsoft.playwright.Browser, PreparedContext> spares,
      java.util.Optional<GridSettings> grid,
      boolean attaching) {
    this.grid = grid;
    this.attaching = attaching;
    this.size = size;
    this.driverFiles = driverFiles;
    this.spares = spares;
    this.tempRoot = tempRoot;
    this.chromium = chromium;
    this.node = node;
    this.headless = headless;
  }

  /** Starts a first lane now, so the first environment does not wait for Chromium to start. */
  synchronized void prelaunch() {
    if (lanes.isEmpty() && !closed) {
      start();
    }
  }

  /**
   * A lane for a new environment, its browser running, with the environment counted on it; the
   * caller {@link Lane#leave() leaves} it when the environment closes or its open fails. A
   * cancellation stops the wait (the lane starts anyway and stays in the pool).
   */
  Lane enter(Cancellation cancellation) {
    Started chosen;
    List<Lane> retired;
    synchronized (this) {
      if (closed) {
        throw new IllegalStateException("the browser pool was closed");
      }
      retired = retireUnusable();
      chosen =
          lanes.stream()
              .filter(s -> s.lane.occupants() == 0)
              .findFirst()
              .orElseGet(
                  () ->
                      lanes.size() < size
                          ? start()
                          : lanes.stream()
                              .min(Comparator.comparingInt(s -> s.lane.occupants()))
                              .orElseGet(this::start));
      chosen.lane.enter();
    }
    retired.forEach(this::retire);
    try {
      awaitLaunch(chosen, cancellation);
      return chosen.lane;
    } catch (RuntimeException | Error e) {
      leave(chosen.lane);
      throw e;
    }
  }

  private static void awaitLaunch(Started started, Cancellation cancellation) {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(LAUNCH_TIMEOUT_MS);
    while (true) {
      cancellation.throwIfCancelled();
      try {
        started.launch.get(50, TimeUnit.MILLISECONDS);
        return;
      } catch (TimeoutException e) {
        if (System.nanoTime() > deadline) {
          started.lane.kill();
          throw new IllegalStateException(
              "Chromium did not start within " + LAUNCH_TIMEOUT_MS + " ms");
        }
      } catch (ExecutionException e) {
        if (e.getCause() instanceof RuntimeException r) {
          throw r;
        }
        throw new IllegalStateException(e.getCause());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new CancellationException("interrupted while Chromium started");
      }
    }
  }

  /** An environment left {@code lane}: a lane that can take no one new is closed once empty. */
  void leave(Lane lane) {
    lane.leave();
    boolean retire;
    synchronized (this) {
      retire = lane.occupants() == 0 && !lane.usable();
      lanes.removeIf(s -> s.lane == lane && retire);
    }
    if (retire) {
      retire(lane);
    }
  }

  /**
   * Closes a lane that left the pool on a thread of its own: the environment that left it may be on
   * that lane's thread (a fault it heard of there), which the close waits for.
   */
  private void retire(Lane lane) {
    Thread closer = new Thread(lane::close, "periscope-lane-close-" + lane.number);
    closer.setDaemon(true);
    synchronized (this) {
      closers.add(closer);
    }
    closer.start();
  }

  /** The threads closing retired lanes; {@link #close} waits for them. */
  private final List<Thread> closers = new ArrayList<>();

  /**
   * Lanes that died or never started take no one new: out of the pool; the empty ones are returned
   * to be closed (outside the pool's lock).
   */
  private List<Lane> retireUnusable() {
    List<Lane> retired = new ArrayList<>();
    lanes.removeIf(
        s -> {
          boolean gone = !s.lane.usable();
          if (gone && s.lane.occupants() == 0) {
            retired.add(s.lane);
          }
          return gone;
        });
    return retired;
  }

  private Started start() {
    Path directory = tempRoot.get().resolve("l" + (++launched));
    try {
      Files.createDirectory(directory);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(
          "cannot create the browser's temp directory " + directory, e);
    }
    Lane lane =
        new Lane(
            chromium, node, directory, headless, launched, driverFiles, spares, grid, attaching);
    Started s = new Started(lane, lane.launch());
    lanes.add(s);
    return s;
  }

  /** Closes every lane, each within {@code timeoutMs}, and waits for the retired ones to close. */
  void close(long timeoutMs) {
    List<Started> all;
    List<Thread> retiring;
    synchronized (this) {
      closed = true;
      all = List.copyOf(lanes);
      lanes.clear();
      retiring = List.copyOf(closers);
    }
    dev.periscope.browser.Cleanup cleanup = new dev.periscope.browser.Cleanup();
    // At once, each on a thread of its own: a lane's close waits for its driver and, on a Grid,
    // for the ends of its sessions, and no lane's wait is another's.
    java.util.Queue<RuntimeException> failures = new java.util.concurrent.ConcurrentLinkedQueue<>();
    List<Thread> closing = new java.util.ArrayList<>();
    for (Started s : all) {
      Thread t =
          new Thread(
              () -> {
                try {
                  s.lane.close(timeoutMs);
                } catch (RuntimeException e) {
                  failures.add(e);
                }
              },
              "periscope-pool-close-" + s.lane.number);
      t.start();
      closing.add(t);
    }
    for (Thread t : closing) {
      cleanup.run(
          () -> {
            try {
              // Each step of a lane's close is bounded.
              t.join();
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          });
    }
    failures.forEach(cleanup::add);
    for (Thread closer : retiring) {
      cleanup.run(
          () -> {
            try {
              closer.join(timeoutMs + Lane.UNANSWERED_MARGIN_MS);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          });
    }
    cleanup.done();
  }
}
