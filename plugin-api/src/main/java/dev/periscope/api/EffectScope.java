package dev.periscope.api;

import java.util.ArrayDeque;
import java.util.Deque;

/**
 * Everything a plugin starts is an effect: registering a provider, a tool or a listener returns an
 * {@link AutoCloseable}, and the plugin adds it here. Closing the scope closes the effects in
 * reverse order, continues past failures, and reports them together as one exception with the
 * others suppressed. After closing, added effects are closed at once.
 */
public final class EffectScope implements AutoCloseable {
  private final Deque<AutoCloseable> effects = new ArrayDeque<>();
  private boolean closed;

  public <T extends AutoCloseable> T add(T effect) {
    synchronized (this) {
      if (!closed) {
        effects.push(effect);
        return effect;
      }
    }
    try {
      effect.close();
    } catch (Exception e) {
      throw new IllegalStateException("effect added to a closed scope failed to close", e);
    }
    throw new IllegalStateException("effect scope is closed");
  }

  @Override
  public void close() throws EffectsFailedException {
    EffectsFailedException failure = null;
    while (true) {
      AutoCloseable next;
      synchronized (this) {
        closed = true;
        next = effects.poll();
      }
      if (next == null) {
        break;
      }
      try {
        next.close();
      } catch (Exception | Error e) {
        if (failure == null) {
          failure = new EffectsFailedException();
        }
        failure.addSuppressed(e);
      }
    }
    if (failure != null) {
      throw failure;
    }
  }

  /** One or more effects failed to close; each failure is a suppressed exception. */
  public static final class EffectsFailedException extends Exception {
    EffectsFailedException() {
      super("one or more effects failed to close");
    }

    @Override
    public String getMessage() {
      StringBuilder b = new StringBuilder(super.getMessage());
      for (Throwable t : getSuppressed()) {
        b.append("\n - ").append(t);
      }
      return b.toString();
    }
  }
}
