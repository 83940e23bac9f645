package dev.periscope.api;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;

/**
 * A cancellation signal that the caller of an operation owns. The operation polls it or registers a
 * callback; only the caller cancels. Cancelling one caller's signal never cancels another caller's
 * wait.
 */
public final class Cancellation {
  private final List<Runnable> callbacks = new ArrayList<>();
  private boolean cancelled;

  /**
   * A signal that is never cancelled. Each call returns a fresh instance, so nobody can cancel it
   * for others.
   */
  public static Cancellation none() {
    return new Cancellation();
  }

  public void cancel() {
    List<Runnable> toRun;
    synchronized (this) {
      if (cancelled) {
        return;
      }
      cancelled = true;
      toRun = new ArrayList<>(callbacks);
      callbacks.clear();
    }
    toRun.forEach(Runnable::run);
  }

  public synchronized boolean isCancelled() {
    return cancelled;
  }

  public void throwIfCancelled() {
    if (isCancelled()) {
      throw new CancellationException("cancelled by the caller");
    }
  }

  /**
   * Runs the callback on cancellation (at once if already cancelled). Closing the result
   * unregisters it.
   */
  public Registration onCancel(Runnable callback) {
    synchronized (this) {
      if (!cancelled) {
        callbacks.add(callback);
        return () -> {
          synchronized (this) {
            callbacks.remove(callback);
          }
        };
      }
    }
    callback.run();
    return () -> {};
  }

  /**
   * A registered cancellation callback; closing it, which never fails, unregisters the callback.
   */
  public interface Registration extends AutoCloseable {
    @Override
    void close();
  }
}
