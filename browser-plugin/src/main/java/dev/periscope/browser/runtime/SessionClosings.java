package dev.periscope.browser.runtime;

import dev.periscope.api.browser.BrowserSessionId;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Which browser sessions have an environment closing right now. A new environment of such a session
 * waits for the close, so it restores the checkpoint that close writes instead of an older one.
 */
final class SessionClosings {
  private final Map<BrowserSessionId, CompletableFuture<Void>> pending = new HashMap<>();

  synchronized CompletableFuture<Void> begin(BrowserSessionId sessionId) {
    CompletableFuture<Void> mine = new CompletableFuture<>();
    pending.merge(sessionId, mine, (previous, next) -> CompletableFuture.allOf(previous, next));
    return mine;
  }

  void end(BrowserSessionId sessionId, CompletableFuture<Void> mine) {
    mine.complete(null);
    synchronized (this) {
      pending.computeIfPresent(sessionId, (id, all) -> all.isDone() ? null : all);
    }
  }

  /** Waits up to {@code timeoutMs} for the session's closing environments. */
  void await(BrowserSessionId sessionId, long timeoutMs) {
    CompletableFuture<Void> all;
    synchronized (this) {
      all = pending.get(sessionId);
    }
    if (all == null) {
      return;
    }
    try {
      all.get(timeoutMs, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      // The earlier environment's close failed or hangs; open from whatever checkpoint exists.
    }
  }
}
