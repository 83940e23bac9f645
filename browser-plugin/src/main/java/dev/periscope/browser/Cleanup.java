package dev.periscope.browser;

/**
 * Cleanup that goes on past a failure: every step runs even when an earlier one failed, and {@link
 * #done()} throws the first failure with the later ones suppressed. Not thread-safe: one cleanup,
 * one thread.
 */
public final class Cleanup {
  private RuntimeException failure;

  /** Runs a step; a failure is kept, not thrown. */
  public Cleanup run(Runnable step) {
    try {
      step.run();
    } catch (RuntimeException e) {
      add(e);
    }
    return this;
  }

  /** Closes each, in order; a failure is kept, not thrown. */
  public Cleanup closeAll(Iterable<? extends AutoCloseable> closeables) {
    for (AutoCloseable c : closeables) {
      run(
          () -> {
            try {
              c.close();
            } catch (RuntimeException e) {
              throw e;
            } catch (Exception e) {
              throw new IllegalStateException("closing " + c + " failed", e);
            }
          });
    }
    return this;
  }

  /** Keeps a failure found by other means; null is ignored. */
  public Cleanup add(RuntimeException e) {
    if (e == null) {
      return this;
    }
    if (failure == null) {
      failure = e;
    } else if (failure != e) {
      failure.addSuppressed(e);
    }
    return this;
  }

  /** The first failure so far, with the later ones suppressed, or null. */
  public RuntimeException failure() {
    return failure;
  }

  /** Throws the first failure, with the later ones suppressed, if any step failed. */
  public void done() {
    if (failure != null) {
      throw failure;
    }
  }
}
