package dev.periscope.api.browser.spi;

import dev.periscope.api.browser.BrowserAction;
import dev.periscope.api.browser.BrowserException;
import dev.periscope.api.browser.ErrorCode;
import dev.periscope.api.browser.Extraction;
import dev.periscope.api.browser.ObservationBudget;
import dev.periscope.api.browser.Screenshot;

/**
 * One isolated browser environment: a browser context with one primary page. The runtime calls it
 * from one queue, one operation at a time; its page actions go through {@link #actions()}.
 * Element-addressed methods take an element the provider returned in its latest observation; the
 * provider re-resolves its opaque target and checks its fingerprint before acting, and throws
 * {@code BROWSER_STALE_REFERENCE} rather than act on a neighbour. Policy denials throw {@code
 * BROWSER_POLICY_DENIED}; other failures {@code BROWSER_ACTION_FAILED}.
 *
 * <p>{@link #abort()} may be called from any thread while an operation runs: it stops that
 * operation, waits until it has settled, and leaves the environment unusable. {@link #close()} is
 * idempotent.
 *
 * <p>An environment also says when it dies on its own ({@link #onFault}) and answers a liveness
 * check ({@link #probe()}), so the runtime notices a dead browser or a wedged page while no call
 * runs, instead of on the next call.
 */
public interface BrowserEnvironment extends AutoCloseable {
  ProviderObservation observe(ObservationBudget budget);

  /**
   * How this environment performs page actions: the runtime hands each {@link
   * BrowserAction.PageAction} to it, on this environment's queue.
   */
  BrowserAction.Handler actions();

  /**
   * The files the page downloaded during the last action and that the project's policy let through,
   * in quarantine; taken once (a second call answers none). Since host API 2.3.0; a provider that
   * keeps no downloads has none.
   */
  default java.util.List<DownloadedFile> takeDownloads() {
    return java.util.List.of();
  }

  /**
   * The origins ({@code scheme://host[:port]}) of the documents from the one that holds the element
   * up to the top page: the first is the field's own frame, the last the top page's. An opaque
   * origin (a sandboxed frame, {@code about:srcdoc}, {@code data:}) is {@code "null"}.
   */
  default java.util.List<String> originChain(ProviderElement element) {
    throw new BrowserException(
        ErrorCode.BROWSER_CAPABILITY_UNSUPPORTED, "this browser provider cannot fill credentials");
  }

  /**
   * Puts a secret into a field, replacing what it held, if the element's {@link #originChain} is
   * still {@code expectedChain} at that moment ({@code BROWSER_CREDENTIAL_DENIED} otherwise), and
   * returns how many characters the field then holds. The provider sets the value in the field's
   * own document rather than typing it (keystrokes go wherever focus is, and another frame can take
   * focus), reveals the secret only for that, keeps it out of every log, error and file, and from
   * then on masks the field in its screenshots.
   */
  default int fillCredential(
      ProviderElement element,
      dev.periscope.api.host.Secret secret,
      java.util.List<String> expectedChain) {
    throw new BrowserException(
        ErrorCode.BROWSER_CAPABILITY_UNSUPPORTED, "this browser provider cannot fill credentials");
  }

  /**
   * The origin of the current tab's page, where a script would run ({@link
   * dev.periscope.api.browser.BrowserAction.Evaluate}); {@code BROWSER_POLICY_DENIED} where a
   * secret is (a tab it was filled in, a page of its origin), so no one is asked for a script
   * there. Since host API 2.11.0; a provider built before cannot run scripts.
   */
  default String scriptOrigin() {
    throw new BrowserException(
        ErrorCode.BROWSER_CAPABILITY_UNSUPPORTED, "this browser provider cannot run scripts");
  }

  /**
   * Runs {@code expression} in the current tab, as the page's own script, if the tab's page is
   * still of {@code origin} and holds no secret ({@code BROWSER_POLICY_DENIED} otherwise): a
   * function's text is called, any other expression evaluated, a promise awaited. Returns its value
   * as JSON cut to {@code maxChars}; a script that throws fails {@code BROWSER_ACTION_FAILED} with
   * its message. Its requests go through the page's own policy and guards. Since host API 2.11.0.
   */
  default dev.periscope.api.browser.BrowserAction.Evaluate.Evaluated evaluate(
      String expression, String origin, int maxChars) {
    throw new BrowserException(
        ErrorCode.BROWSER_CAPABILITY_UNSUPPORTED, "this browser provider cannot run scripts");
  }

  /**
   * From now on, shows {@code guard} every request this environment's pages send (navigations,
   * subresources, fetches, beacons, WebSocket handshakes and the messages a page sends over them)
   * before it leaves, and refuses those it refuses before any byte of them leaves: the page sees a
   * network error, and the provider adds the guard's line to the next observation's page events.
   * The runtime calls it, on the environment's queue, before a secret goes into a page; a second
   * call replaces the guard. Returns whether the environment guards; since host API 2.11.0, the
   * default cannot and says false.
   */
  default boolean guardEgress(EgressGuard guard) {
    return false;
  }

  Screenshot screenshot(boolean fullPage);

  /**
   * Opens what the checkpoint this environment was restored from saved of its pages (its tabs, at
   * their URLs), if anything. The runtime calls it once, right after the open, when the environment
   * is ready: its egress guard armed ({@link #guardEgress}) when secrets had gone into the
   * session's pages, so no restored page runs before the guard does. Since host API 2.14.0; the
   * default opens nothing (a provider that reopens its pages as it restores keeps doing so).
   */
  default void reopenSaved() {}

  /**
   * A frame of a session's recording: the viewport as a JPEG at half its CSS size, masked as every
   * screenshot is (each field that received a credential painted over), taken cheaply (no budget
   * check, no view). Since host API 2.12.0; the default has none and returns null, and the
   * recording keeps the transition without an image.
   */
  default byte[] recordingFrame() {
    return null;
  }

  /**
   * For the session's recording, every complaint (console errors and warnings, uncaught errors,
   * failed requests, one per line, other tabs' marked) of the observations since the last call that
   * counted them and listed only the first few: what the model was told of in part, in full. Called
   * in the recording's turn after an action. Since host API 2.13.0; the default has none, and the
   * recording keeps what the observations listed.
   */
  default java.util.List<String> recordingComplaints() {
    return java.util.List.of();
  }

  /**
   * Reads records of one {@code kind} from the region an element stands for (the whole page when
   * null), by the provider's fixed traversal. Only providers that advertise {@link
   * Capability#EXTRACTION} implement it.
   */
  default Extraction extract(String kind, ProviderElement region, int limit, int maxFieldChars) {
    throw new BrowserException(
        ErrorCode.BROWSER_CAPABILITY_UNSUPPORTED, "this browser provider cannot extract records");
  }

  /**
   * Stops the running operation, if any, waits for it to settle, and makes the environment
   * unusable.
   */
  void abort();

  /**
   * Registers the runtime's listener for a fault this environment notices itself: its browser, its
   * page's renderer or its driver died. The listener is called at most once, on any thread, and
   * must not block; a fault noticed before registration is delivered at once. Nothing is reported
   * for what {@link #abort()} or {@link #close()} caused. The default notices nothing.
   */
  default void onFault(java.util.function.Consumer<EnvironmentFault> listener) {}

  /**
   * Returns as soon as the page answers: a liveness check the runtime runs while no operation does,
   * and after a failed step, under a short deadline of its own. A page that does not answer in time
   * is aborted as unresponsive. A quick failure (the page is navigating, or already dead) is not a
   * missed answer: dying is for {@link #onFault} to report. The default answers at once.
   */
  default void probe() {}

  /**
   * Runs {@code call}, one step of the runtime's on this environment, under {@code deadline}: the
   * provider bounds what it does inside from that one deadline ({@link CallDeadline#answerBy()} and
   * {@link CallDeadline#waitsEnd()}), never from a margin of its own. The runtime calls its steps
   * on an environment one at a time. Since host API 2.10.0; the default just runs it.
   */
  default <T> T within(CallDeadline deadline, java.util.function.Supplier<T> call) {
    return call.get();
  }

  /**
   * Where this environment's browser runs, in words, when that is worth recording: for a browser on
   * a Selenium Grid, its node and session. The runtime records it with every transition of the
   * environment. Asked once, as the environment opens. Since host API 2.4.0; the default is empty
   * (this machine).
   */
  default java.util.Optional<String> placement() {
    return java.util.Optional.empty();
  }

  /**
   * Whether this environment works in a browser that someone else runs (a person's own Chromium),
   * which it attached to as it opened and detaches from as it closes, leaving that browser running:
   * the runtime's journal records both. Asked once, as the environment opens. Since host API 2.6.0;
   * the default is false (the provider's own browser).
   */
  default boolean attached() {
    return false;
  }

  @Override
  void close();
}
