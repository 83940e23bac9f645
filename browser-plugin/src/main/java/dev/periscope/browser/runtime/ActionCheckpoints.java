package dev.periscope.browser.runtime;

import dev.periscope.api.browser.BrowserException;
import dev.periscope.api.browser.ErrorCode;
import dev.periscope.api.browser.Persistence;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The checkpoint that follows a completed action of a resuming session, so a host killed outright
 * resumes with the state of its last completed action. The action's caller has its result at once;
 * the checkpoint runs right after, on a thread of its own, still holding the environment's queue,
 * so the next action (one that may hang for its whole timeout) cannot go before it. It writes only
 * when cookies or local storage changed.
 */
final class ActionCheckpoints implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ActionCheckpoints.class);
  private static final AtomicInteger THREADS = new AtomicInteger();

  private final ExecutorService threads =
      Executors.newCachedThreadPool(
          r -> {
            Thread t = new Thread(r, "periscope-checkpoint-" + THREADS.incrementAndGet());
            t.setDaemon(true);
            return t;
          });
  private final EnvironmentOpener opener;
  private final Runnable afterEach;

  /** {@code afterEach} runs after each checkpoint written this way (retention). */
  ActionCheckpoints(EnvironmentOpener opener, Runnable afterEach) {
    this.opener = opener;
    this.afterEach = afterEach;
  }

  /** Called inside the action's operation, on the environment's queue. */
  void actionCompleted(Slot slot, Environment env) {
    if (slot.persistence == Persistence.RESUME) {
      env.afterThisOperation(threads, () -> run(slot, env));
    }
  }

  private void run(Slot slot, Environment env) {
    try {
      opener.checkpoint(slot, env, env.timeouts().actionMs());
      afterEach.run();
    } catch (BrowserException e) {
      if (e.code() != ErrorCode.BROWSER_ENVIRONMENT_CLOSED) {
        LOG.warn(
            "browser session {}: the checkpoint after an action failed: {}",
            slot.sessionId,
            e.getMessage());
      }
    } catch (RuntimeException e) {
      LOG.warn(
          "browser session {}: the checkpoint after an action failed: {}",
          slot.sessionId,
          e.toString());
    }
  }

  /** Stops: a checkpoint still running finishes within {@code timeoutMs}, or this fails. */
  void close(long timeoutMs) {
    threads.shutdown();
    try {
      if (!threads.awaitTermination(timeoutMs, TimeUnit.MILLISECONDS)) {
        threads.shutdownNow();
        throw new IllegalStateException("a checkpoint did not finish within " + timeoutMs + " ms");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() {
    close(10_000);
  }
}
