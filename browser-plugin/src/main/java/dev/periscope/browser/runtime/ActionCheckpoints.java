package dev.periscope.browser.runtime;

import dev.periscope.api.Cancellation;
import dev.periscope.api.browser.BrowserException;
import dev.periscope.api.browser.ErrorCode;
import dev.periscope.api.browser.Persistence;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The checkpoint that follows a completed action of a resuming session, so a host killed outright resumes with the
 * state of its last completed action. It runs shortly after the action (actions in quick succession share one),
 * on a thread of its own and through the environment's queue: never inside an action, never on its path. It
 * writes only when cookies or local storage changed.
 */
final class ActionCheckpoints implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ActionCheckpoints.class);

  private final ScheduledExecutorService thread = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "periscope-checkpoint");
    t.setDaemon(true);
    return t;
  });
  private final EnvironmentOpener opener;
  private final long delayMs;
  private final Runnable afterEach;

  /** {@code afterEach} runs after each checkpoint written this way (retention). */
  ActionCheckpoints(EnvironmentOpener opener, long delayMs, Runnable afterEach) {
    this.opener = opener;
    this.delayMs = delayMs;
    this.afterEach = afterEach;
  }

  void actionCompleted(DefaultBrowserRuntime.Slot slot, Environment env) {
    if (slot.persistence != Persistence.RESUME || !env.markCheckpointDue()) {
      return;
    }
    try {
      thread.schedule(() -> run(slot, env), delayMs, TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException e) {
      // the runtime is closing; the last release checkpoints
    }
  }

  private void run(DefaultBrowserRuntime.Slot slot, Environment env) {
    env.clearCheckpointDue();
    try {
      env.queued(Cancellation.none(), () -> {
        opener.checkpointIfChanged(slot, env);
        return null;
      });
      afterEach.run();
    } catch (BrowserException e) {
      if (e.code() != ErrorCode.BROWSER_ENVIRONMENT_CLOSED) {
        LOG.warn("browser session {}: the checkpoint after an action failed: {}", slot.sessionId, e.getMessage());
      }
    } catch (RuntimeException e) {
      LOG.warn("browser session {}: the checkpoint after an action failed: {}", slot.sessionId, e.toString());
    }
  }

  /** Stops: a checkpoint still running finishes within {@code timeoutMs}, or this fails. */
  void close(long timeoutMs) {
    thread.shutdownNow();
    try {
      if (!thread.awaitTermination(timeoutMs, TimeUnit.MILLISECONDS)) {
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
