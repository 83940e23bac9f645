package dev.periscope.browser.playwright;

import dev.periscope.api.Cancellation;
import dev.periscope.api.browser.spi.EnvironmentPolicy;
import dev.periscope.browser.policy.DestinationPolicy;
import java.util.Optional;

/**
 * A way to obtain a browser for an environment and to place it, which {@link PlaywrightProvider}
 * composes with the one local core (its pool of lanes, {@link PlaywrightEnvironment}, its rooms): a
 * context on a Chromium the lane launched here ({@link LocalSource}), a browser of its own that is
 * a session on a Selenium Grid ({@link GridSource}), or tabs of its own in a Chromium the user
 * runs, attached over CDP ({@link CdpSource}). The defaults are the local source's.
 */
interface BrowserSource {
  /** The provider's id. */
  String id();

  /** Says in the log, as the provider starts, what its browsers will be. */
  void logStart();

  /** Why the browsers cannot be had, Node.js aside; empty when they can. */
  Optional<String> unavailableReason();

  /** Whether the network policy holds for its browsers (their proxies reach them, or it checks). */
  boolean enforcesPolicy();

  /** What the project may do about a policy this source does not enforce. */
  default Optional<String> policyRemedy() {
    return Optional.empty();
  }

  /**
   * Off the lane, before an open enters one: what this open's browser is obtained with, on the
   * lane's thread (the cdp source asks its Chromium first).
   */
  default Obtain obtain() {
    return lane -> Optional.empty();
  }

  /** On the lane's thread: the browser of an environment's own, when it is not the lane's. */
  interface Obtain {
    Optional<Lane.Remote> on(Lane lane);
  }

  /**
   * Before an open enters its lane's thread: waits for room to start its browser; true when it
   * counts a browser starting, which {@link #launched} then lets go.
   */
  default boolean awaitSlot(Cancellation cancellation) {
    return false;
  }

  /** The browser {@link #awaitSlot} counted has started, or failed to. */
  default void launched() {}

  /** How much longer than an open's own bound it may take to obtain its browser. */
  default long obtainMs() {
    return 0;
  }

  /**
   * On the lane's thread: the environment's context, with its policy proxy, on the browser {@code
   * remote} (or the lane's own).
   */
  PreparedContext prepare(
      Lane lane,
      Optional<Lane.Remote> remote,
      EnvironmentPolicy policy,
      DestinationPolicy destinations,
      String storageState);

  /** Where the environment's context is, and how it lets it go. */
  default BrowserPlace place(Optional<Lane.Remote> remote, PreparedContext prepared) {
    return BrowserPlace.SHARED;
  }

  /** What its environments do with downloads. */
  PlaywrightSettings.Downloads downloads();

  /** Whether an open whose lane's browser died as it began is made again on another lane. */
  default boolean reopensOnDeadLane() {
    return false;
  }

  /**
   * A failure to open, in this source's words, when it is one of its own (a Grid that gave no
   * browser); empty for the provider's.
   */
  default Optional<RuntimeException> failure(RuntimeException e) {
    return Optional.empty();
  }

  /** An environment has opened. */
  default void opened(PlaywrightEnvironment environment) {}

  /** Whether a first navigation goes through a policy proxy this JVM warms ahead. */
  default boolean warmsProxies() {
    return true;
  }

  /** The provider's start, in the background: what the source says of its browsers then. */
  default void started() {}

  /** What the lanes of this source need: a Grid's settings when they launch there. */
  default Optional<GridSettings> grid() {
    return Optional.empty();
  }

  /** Whether the lanes attach to a Chromium the user runs instead of launching one. */
  default boolean attaches() {
    return false;
  }

  /** What makes the lanes' spare contexts ahead of need, when they make any. */
  default Optional<java.util.function.Function<com.microsoft.playwright.Browser, PreparedContext>>
      spares() {
    return Optional.empty();
  }

  /** The provider is disposed: what the source still runs ends. */
  default void dispose() {}
}
