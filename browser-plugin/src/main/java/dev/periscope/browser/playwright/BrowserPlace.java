package dev.periscope.browser.playwright;

import com.microsoft.playwright.BrowserContext;
import dev.periscope.browser.Cleanup;
import java.util.Optional;

/**
 * Where an environment's context is, and how the environment lets it go; the {@link BrowserSource}
 * that obtained its browser says which. The defaults are {@link #SHARED}'s: a context of its own on
 * the lane's Chromium, which closing the context is all it takes to leave. {@link Remote} is a
 * browser of the environment's own (a Grid session), ended with it; {@link User} is a share of a
 * Chromium the user runs, where only the environment's own tabs close and the connection.
 */
interface BrowserPlace {
  /** A context of its own on the lane's Chromium, which other environments share. */
  BrowserPlace SHARED = new BrowserPlace() {};

  /**
   * Its share of a Chromium the user runs, when it is attached to one (the cdp provider): then its
   * context is the user's, and only its own tabs are its to close.
   */
  default Optional<UserTabs> user() {
    return Optional.empty();
  }

  /** {@link dev.periscope.api.browser.spi.BrowserEnvironment#attached}. */
  default boolean attached() {
    return false;
  }

  /** Where its browser runs, in words, when it is not the lane's own. */
  default Optional<String> placement() {
    return Optional.empty();
  }

  /** The URI of the Grid node it runs on, when it runs on a Grid that said where. */
  default Optional<String> gridNode() {
    return Optional.empty();
  }

  /** From any thread, past the call that may hold the lane: closes what is the environment's. */
  default void abort(Lane lane, BrowserContext context, long closeTimeoutMs) {
    lane.closeNow(context, closeTimeoutMs);
  }

  /** On the lane's thread, at a close no abort came before: closes what is the environment's. */
  default void close(BrowserContext context, EnvironmentTabs tabs) {
    context.close();
  }

  /**
   * On the lane's thread, after {@link #close} (or the abort's), whether or not that failed: a
   * browser that is the environment's alone goes with it.
   */
  default void release(Lane lane, long closeTimeoutMs) {}

  /** Last of a close, even when the lane could not run its part. */
  default void closed() {}

  /** The browser that is this environment's alone (a Grid session), closed with it. */
  class Remote implements BrowserPlace {
    final Lane.Remote remote;

    Remote(Lane.Remote remote) {
      this.remote = remote;
    }

    @Override
    public Optional<String> placement() {
      return remote.placement();
    }

    @Override
    public Optional<String> gridNode() {
      return remote.session().map(GridStatus.Session::node);
    }

    /**
     * Its own browser, a session on a Grid: closing it ends that session. A Chromium the user runs:
     * closing only disconnects.
     */
    @Override
    public void release(Lane lane, long closeTimeoutMs) {
      lane.deadline(closeTimeoutMs);
      lane.closeRemote(remote);
    }
  }

  /** Its own tabs in a Chromium the user runs, over a connection of its own ({@link UserTabs}). */
  final class User extends Remote {
    private final UserTabs user;

    User(Lane.Remote remote, UserTabs user) {
      super(remote);
      this.user = user;
    }

    @Override
    public Optional<UserTabs> user() {
      return Optional.of(user);
    }

    @Override
    public boolean attached() {
      return true;
    }

    /**
     * The context is the user's: its own tabs close, and the connection. (Every page it had: the
     * tab list is the lane thread's, and a closed page is no harm.)
     */
    @Override
    public void abort(Lane lane, BrowserContext context, long closeTimeoutMs) {
      user.pages().forEach(p -> lane.closeNow(p, closeTimeoutMs));
      lane.closeNow(context.browser(), closeTimeoutMs);
    }

    /** The user's context stays, with every tab but the environment's own. */
    @Override
    public void close(BrowserContext context, EnvironmentTabs tabs) {
      Cleanup closing = new Cleanup();
      tabs.forEach(t -> closing.run(t.page::close));
      closing.done();
    }

    /** Its tabs in a person's browser close even when the driver that opened them is gone. */
    @Override
    public void closed() {
      user.closeOpened();
    }
  }
}
