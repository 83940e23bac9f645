package dev.periscope.browser.playwright;

import com.microsoft.playwright.BrowserContext;
import com.microsoft.playwright.ElementHandle;
import com.microsoft.playwright.Page;
import com.microsoft.playwright.PlaywrightException;
import com.microsoft.playwright.options.ElementState;
import com.microsoft.playwright.options.LoadState;
import dev.periscope.api.browser.BrowserAction;
import dev.periscope.api.browser.BrowserException;
import dev.periscope.api.browser.ErrorCode;
import dev.periscope.api.browser.Extraction;
import dev.periscope.api.browser.KeyChord;
import dev.periscope.api.browser.ObservationBudget;
import dev.periscope.api.browser.Screenshot;
import dev.periscope.api.browser.spi.CallDeadline;
import dev.periscope.api.browser.spi.CheckpointRef;
import dev.periscope.api.browser.spi.CheckpointingEnvironment;
import dev.periscope.api.browser.spi.DownloadedFile;
import dev.periscope.api.browser.spi.EnvironmentFault;
import dev.periscope.api.browser.spi.EnvironmentPolicy;
import dev.periscope.api.browser.spi.ProviderElement;
import dev.periscope.api.browser.spi.ProviderObservation;
import dev.periscope.browser.Cleanup;
import dev.periscope.browser.policy.DestinationPolicy;
import dev.periscope.browser.policy.PolicyProxy;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One BrowserContext with its tabs ({@link Tab}: the first page, and each page an action of the
 * agent opened or {@code browser_tabs} did, up to {@code maxTabs}), on a lane of the browser pool
 * that other environments may share. Observations and actions are of the current tab. Every call
 * runs on the lane's thread, under the deadline the runtime handed down with the step ({@link
 * #within}). Its checkpoint is Playwright's storage state (cookies, local storage, IndexedDB) and
 * the page's session storage ({@link BrowserStorage}), written through {@link CheckpointFiles}.
 */
final class PlaywrightEnvironment
    implements CheckpointingEnvironment,
        dev.periscope.api.browser.spi.LiveViewEnvironment,
        BrowserAction.Handler {
  private static final org.slf4j.Logger LOG =
      org.slf4j.LoggerFactory.getLogger(PlaywrightEnvironment.class);

  private final Lane lane;
  private final BrowserContext context;

  /** Set by {@link #abort()}: the context is closing, and nothing more may run on it. */
  private volatile boolean aborted;

  /** Hears of the shared browser's disconnection; removed when this environment closes. */
  private final java.util.function.Consumer<com.microsoft.playwright.Browser> disconnected =
      b -> fault(EnvironmentFault.Cause.BROWSER_EXITED, "Chromium exited");

  /** The tabs, and which is current: what observations and actions are of. */
  private final EnvironmentTabs tabs;

  private final Runnable onClosed;
  private final long closeTimeoutMs;
  private final long navigationTimeoutMs;
  private final EnvironmentPolicy policy;

  /** The downloads actions start, kept in quarantine until the runtime takes them. */
  private final PageDownloads downloads;

  private final PlaywrightSettings.Downloads downloadPolicy;

  /** How long a dialog an action opened waits for its answer before it is dismissed. */
  private final long dialogTimeoutMs;

  /**
   * The page-global name of this environment's registry: random, so page scripts cannot rely on it.
   */
  private final String registryKey;

  private final java.util.concurrent.atomic.AtomicBoolean closed =
      new java.util.concurrent.atomic.AtomicBoolean();

  /** What its checkpoints are made of, when it keeps them. */
  private final java.util.Optional<EnvironmentState> state;

  /**
   * Every connection of this environment's browser goes through it; it closes before the context
   * does.
   */
  private final PolicyProxy proxy;

  /**
   * Its share of a Chromium the user runs, when it is attached to one (the cdp provider): then its
   * context is the user's, and only its own tabs are its to close.
   */
  private final UserTabs user;

  private final CredentialFields credentialFields = new CredentialFields();

  /** The first fault this environment noticed, and the runtime's listener for it. */
  private final java.util.concurrent.atomic.AtomicReference<EnvironmentFault> fault =
      new java.util.concurrent.atomic.AtomicReference<>();

  private volatile java.util.function.Consumer<EnvironmentFault> faultListener;
  private final java.util.concurrent.atomic.AtomicBoolean faultDelivered =
      new java.util.concurrent.atomic.AtomicBoolean();

  PlaywrightEnvironment(
      Optional<Lane.Remote> remote,
      Lane lane,
      PreparedContext prepared,
      EnvironmentPolicy policy,
      long closeTimeoutMs,
      long timeoutMarginMs,
      Runnable onClosed,
      java.util.Optional<StateCheckpoints> saving,
      long dialogTimeoutMs,
      long storageCapBytes,
      int maxTabs,
      PlaywrightSettings.Downloads downloadPolicy) {
    BrowserContext context = prepared.context();
    this.remote = remote;
    this.user = prepared.user();
    this.saved = prepared.tabs();
    PolicyProxy proxy = prepared.proxy();
    String registryKey = prepared.registryKey();
    this.downloadPolicy = downloadPolicy;
    this.downloads = new PageDownloads(downloadPolicy);
    this.dialogTimeoutMs = dialogTimeoutMs;
    this.proxy = proxy;
    this.registryKey = registryKey;
    this.policy = policy;
    this.navigationTimeoutMs = policy.timeouts().navigationMs();
    this.closeTimeoutMs = closeTimeoutMs;
    this.timeoutMarginMs = timeoutMarginMs;
    this.lane = lane;
    this.context = context;
    this.onClosed = onClosed;
    // A page the context gets while an action runs is that action's: a tab. Any other is closed
    // (at the next call, when events arrive), and so is one past the tab limit.
    this.tabs =
        new EnvironmentTabs(
            context,
            prepared.page(),
            maxTabs,
            navigationTimeoutMs,
            this::equip,
            this::ending,
            java.util.Optional.ofNullable(user));
    this.state = saving.map(files -> new EnvironmentState(context, tabs, files, storageCapBytes));
    // Death, noticed as it happens: Playwright's events arrive while a call runs or the lane
    // pumps them between calls; the driver process is watched by the JVM.
    context.browser().onDisconnected(disconnected);
    this.driverExit =
        lane.onDriverExit(
            () ->
                fault(
                    EnvironmentFault.Cause.DRIVER_EXITED, "the browser's driver (Node.js) exited"));
  }

  /** This environment's policy proxy (tests attack it from another environment's page). */
  PolicyProxy proxy() {
    return proxy;
  }

  /** This environment's watch on the lane's driver; removed when it closes. */
  private final Runnable driverExit;

  /**
   * The deadline the runtime handed down with the step now running ({@link #within}); null between
   * steps.
   */
  private volatile CallDeadline handed;

  /** The runtime's margin past a step's timeout, for work no step of the runtime's bounds. */
  private final long timeoutMarginMs;

  @Override
  public <T> T within(CallDeadline deadline, java.util.function.Supplier<T> call) {
    CallDeadline outer = handed;
    handed = deadline;
    try {
      return call.get();
    } finally {
      handed = outer;
    }
  }

  /**
   * The deadline of the call now made: the one the runtime handed down; for a call made outside any
   * step of the runtime's (a live view's input, a provider's test), the longer of the action and
   * navigation timeouts and the runtime's margin, from now.
   */
  private CallDeadline deadline() {
    CallDeadline d = handed;
    return d != null
        ? d
        : CallDeadline.startingNow(
            Math.max(policy.timeouts().actionMs(), policy.timeouts().navigationMs()),
            timeoutMarginMs);
  }

  /**
   * When the waits after an action (for a navigation's headers, the windows and downloads it
   * started) end at the latest: a second before the timeout of the call they are part of, leaving
   * it time to answer (and to close a page whose navigation got no headers) before the runtime's
   * deadline.
   */
  private long waitsEnd() {
    return lane.running().waitsEnd();
  }

  /**
   * The mark of the requests for data started before the latest click ({@link
   * PageGuards#dataMark}), until the observation after it has looked at them; -1 when none.
   */
  private long clickRequests = -1;

  /** The tab the latest observation was of: its refs name elements of no other tab. */
  private Tab observedTab;

  /**
   * {@code BROWSER_STALE_REFERENCE} when the current tab is not the one the latest observation was
   * of (a tab that closed itself between calls gave way to another).
   */
  private void requireObservedTab() {
    if (observedTab != tab()) {
      throw BrowserException.of(
              ErrorCode.BROWSER_STALE_REFERENCE,
              "the observation was of another tab than the current one (tab "
                  + tab().id
                  + "); observe the page again")
          .withUrl(tab().page.url());
    }
  }

  /** Whether this environment is closing or was aborted. */
  private boolean ending() {
    return closed.get() || aborted;
  }

  /** Whether this environment is closing or was aborted, for those that watch it from outside. */
  boolean ended() {
    return ending();
  }

  /**
   * Its place is being taken out of service while it still works (its Grid node drains): the
   * runtime moves the session once no call runs on this environment ({@link
   * EnvironmentFault.Cause#RETIRING}); false when nobody listens yet, or it is ending.
   */
  boolean retire(String detail) {
    // Not the one fault this environment reports: a crash after it must still be heard.
    var listener = faultListener;
    if (listener == null || ending()) {
      return false;
    }
    listener.accept(new EnvironmentFault(EnvironmentFault.Cause.RETIRING, detail));
    return true;
  }

  /** The current tab. */
  private Tab tab() {
    return tabs.current();
  }

  /** Gives {@code t} the page {@code page} and what watches it. */
  private void equip(Tab t, Page page) {
    if (user != null) {
      user.equip(page);
    }
    t.page = page;
    t.guards =
        new PageGuards(
            page,
            context.newCDPSession(page),
            registryKey,
            navigationTimeoutMs,
            () -> tabs.takeClosedPages(t),
            count -> tabs.awaitOpened(count, waitsEnd()),
            lane,
            this::waitsEnd,
            this::ending,
            downloads);
    t.clickListeners = new ClickListeners(t.guards.control(), registryKey);
    t.navigations = new NavigationOutcomes(page, proxy);
    t.dialogs =
        new PageDialogs(
            page,
            lane,
            dialogTimeoutMs,
            policy.timeouts().actionMs(),
            line -> t.guards.report(line));
    t.observedFrames = List.of();
    ActionStage downloadsKept = downloads.stage(() -> t.page.url());
    t.opening =
        ActionPipeline.of(
            t.dialogs, downloadsKept, t.navigations, newWindows, t.guards, t.dialogs.work);
    var acting = new java.util.ArrayList<ActionStage>(t.opening.stages());
    acting.add(0, documentArrived);
    t.acting = ActionPipeline.of(acting.toArray(ActionStage[]::new));
    t.unguarded = ActionPipeline.of(t.dialogs, newWindows, t.dialogs.work);
    watchRenderer(page);
  }

  /**
   * The tabs' stage ({@link EnvironmentTabs#around}): a page that opens while an action runs is its
   * tab. Read as it runs: the first tab is equipped while the tabs are being made.
   */
  private final ActionStage newWindows =
      new ActionStage() {
        @Override
        public <T> T around(String what, java.util.concurrent.Callable<T> rest) throws Exception {
          return tabs.around(what, rest);
        }
      };

  /**
   * The first stage of an action on the page's document: a navigation under way must have brought
   * it ({@link #awaitDocument}).
   */
  private final ActionStage documentArrived =
      new ActionStage() {
        @Override
        public <T> T around(String what, java.util.concurrent.Callable<T> rest) throws Exception {
          awaitDocument(what, ErrorCode.BROWSER_STALE_REFERENCE);
          return rest.call();
        }
      };

  private void watchRenderer(Page watched) {
    watched.onCrash(p -> fault(EnvironmentFault.Cause.PAGE_CRASHED, "the page's renderer crashed"));
  }

  /** A fault this environment noticed itself; nothing counts once it is closing or was aborted. */
  private void fault(EnvironmentFault.Cause cause, String detail) {
    if (ending()) {
      return;
    }
    fault.compareAndSet(null, new EnvironmentFault(cause, detail));
    deliverFault();
  }

  private void deliverFault() {
    var listener = faultListener;
    var noticed = fault.get();
    if (listener != null && noticed != null && faultDelivered.compareAndSet(false, true)) {
      listener.accept(noticed);
    }
  }

  @Override
  public void onFault(java.util.function.Consumer<EnvironmentFault> listener) {
    faultListener = listener;
    deliverFault();
  }

  /** The page answers a trivial script, or fails at once: its own deadline is the runtime's. */
  @Override
  public void probe() {
    // A page that holds a dialog open runs no script, and answers for itself: it waits. So does
    // one on its way to another document, which Chromium runs no script in until it comes.
    call(
        "checking the page",
        () -> {
          Tab t = tab();
          if (t.dialogs.pending().isPresent() || t.guards.navigating()) {
            return null;
          }
          try {
            return lane.briefly(PROBE_FIRST_MS, () -> t.page.evaluate("1"));
          } catch (PlaywrightException held) {
            // A navigation that set off as the script went: the page is on its way, not stuck.
            return t.guards.navigating() ? null : t.page.evaluate("1");
          }
        });
  }

  /**
   * How long a liveness check's script may take before the check looks again whether the page set
   * off for another document meanwhile (and then lets it be); else it asks again, within the
   * runtime's deadline.
   */
  private static final long PROBE_FIRST_MS = 1_000;

  /**
   * Runs an action on the lane's thread and then reports, as {@code BROWSER_POLICY_DENIED},
   * whatever the page guards blocked while it ran and a main document the network policy denied,
   * and as {@code BROWSER_NAVIGATION_FAILED} a main document that could not be reached. The guards
   * let a navigation the action started reach its headers first, so its outcome is this action's.
   */
  private <T> T guarded(String what, java.util.concurrent.Callable<T> work) {
    return guarded(what, true, work);
  }

  /**
   * {@link #guarded}; {@code onDocument} when the work acts on the page's document (not an open,
   * which replaces it), which must have come first ({@link #awaitDocument}). The action passes
   * through the tab's pipeline ({@link Tab#acting}); the tab acted on is the one current as it
   * begins, whichever is current by the end (one that closes itself gives way).
   */
  private <T> T guarded(String what, boolean onDocument, java.util.concurrent.Callable<T> work) {
    return call(what, () -> (onDocument ? tab().acting : tab().opening).run(what, work));
  }

  /**
   * Runs an action on the lane's thread: a dialog it opens stops it there and waits for the model
   * ({@link PageDialogs#around}); with one already open it fails {@code BROWSER_DIALOG_PENDING}.
   */
  private <T> T act(String what, java.util.concurrent.Callable<T> work) {
    return call(what, () -> tab().unguarded.run(what, work));
  }

  private void refuseBeforeDispatch(ProviderElement element) {
    PageGuards.refuseBeforeDispatch(element, downloadPolicy.enabled());
  }

  /**
   * Runs work on the lane's thread. A Playwright failure becomes {@code BROWSER_ACTION_FAILED} with
   * a one-line reason: the driver's JavaScript stack and its file paths never reach the model.
   */
  private <T> T call(String what, java.util.concurrent.Callable<T> work) {
    if (aborted) {
      throw new BrowserException(
          ErrorCode.BROWSER_ENVIRONMENT_CLOSED, "this browser environment was aborted");
    }
    try {
      return lane.call(work, deadline());
    } catch (PlaywrightException e) {
      noticeDeath(e);
      throw BrowserException.of(
          ErrorCode.BROWSER_ACTION_FAILED,
          what + " failed: " + ChromiumLog.summary(e.getMessage()),
          e);
    } catch (RuntimeException e) {
      noticeDeath(e);
      throw e;
    }
  }

  /**
   * After a failed call: a driver, browser or renderer that died is a fault now, before its event
   * arrives (the driver's exit is seen by another thread; Chromium's and the renderer's reach Java
   * after the failure).
   */
  private void noticeDeath(RuntimeException failure) {
    String message = String.valueOf(failure.getMessage());
    if (!lane.driverRunning()) {
      fault(EnvironmentFault.Cause.DRIVER_EXITED, "the browser's driver (Node.js) exited");
    } else if (connectionLost(message)) {
      // The pipe to the driver closes while its process is still exiting: no call can reach this
      // browser again, whether or not the process is gone yet.
      fault(
          EnvironmentFault.Cause.DRIVER_EXITED,
          lane.awaitDriverExit(DRIVER_EXIT_WAIT_MS)
              ? "the browser's driver (Node.js) exited"
              : "the connection to the browser's driver (Node.js) closed");
    } else if (!lane.browserRunning()) {
      fault(EnvironmentFault.Cause.BROWSER_EXITED, "Chromium exited");
    } else if (String.valueOf(failure.getMessage()).startsWith("Target crashed")) {
      fault(EnvironmentFault.Cause.PAGE_CRASHED, "the page's renderer crashed");
    }
  }

  /** How long a failure that lost the driver's connection waits to see the driver's process end. */
  private static final long DRIVER_EXIT_WAIT_MS = 2_000;

  /** Playwright's words for a connection to its driver that is gone for good. */
  static boolean connectionLost(String message) {
    String m = message.toLowerCase(java.util.Locale.ROOT);
    return m.contains("pipe closed") || m.contains("playwright connection closed");
  }

  @Override
  public ProviderObservation observe(ObservationBudget budget) {
    // Within the runtime's deadline for an observation (the action timeout and its margin): a
    // script held by a navigation that set off meanwhile fails the observation, not the browser.
    return call(
        "observing the page",
        () -> {
          var dialog = tab().dialogs.pending();
          if (dialog.isPresent()) {
            // The page runs nothing until its dialog is answered: it is shown as it waits.
            return ProviderObservation.awaiting(
                    tab().page.url(), dialog.get(), tabs.takePageEvents())
                .withTabs(tabs.listing(null));
          }
          long documentBy = documentWaitEnd();
          if (!tab().guards.awaitNavigation(documentBy)) {
            return onItsWay();
          }
          awaitParsed(documentBy);
          List<com.microsoft.playwright.Frame> frames = new java.util.ArrayList<>();
          ProviderObservation o;
          try {
            o = observeSettled(budget, frames, tab().guards::drained);
            // A click that started requests for data (a cart a fetch updates) is observed again
            // once they have answered: what the page draws from the answers is what it changed.
            // Known only now, the requests being reported after the click's own answer; a click
            // that started none costs nothing more.
            long since = clickRequests;
            clickRequests = -1;
            Tab t = tab();
            if (since >= 0 && t.guards.dataUnderWaySince(since) > 0) {
              TypingReactions.afterClick(
                  t.page, registryKey, () -> t.guards.dataUnderWaySince(since), waitsEnd());
              frames.clear();
              o = observeSettled(budget, frames, t.guards::drained);
            }
          } catch (PlaywrightException held) {
            if (!tab().guards.navigating()) {
              throw held;
            }
            // It set off for another document while it was read.
            return onItsWay();
          }
          tab().observedFrames = frames;
          observedTab = tab();
          return new ProviderObservation(
              o.url(),
              o.title(),
              o.text(),
              o.totalTextChars(),
              o.elements(),
              o.totalElements(),
              o.elementsTruncated(),
              tabs.takePageEvents(),
              tab().navigations.status(tab().page.url()),
              null,
              tabs.listing(o.title()),
              o.challenge(),
              o.records(),
              o.textLines());
        });
  }

  /**
   * The page's observation. A document that navigated away while it was observed (a redirect a
   * script started as the action ended) is gone: the new one is observed once it has loaded, up to
   * {@value #OBSERVE_ATTEMPTS} times. On the lane's thread.
   */
  private ProviderObservation observeSettled(
      ObservationBudget budget,
      List<com.microsoft.playwright.Frame> frames,
      java.util.function.Consumer<Map<String, Object>> guardsRead) {
    for (int attempt = 1; ; attempt++) {
      try {
        tab().clickListeners.mark();
        return PageScripts.observe(tab().page, registryKey, budget, frames, guardsRead);
      } catch (PlaywrightException e) {
        if (attempt == OBSERVE_ATTEMPTS
            || !String.valueOf(e.getMessage()).contains("Execution context was destroyed")) {
          throw e;
        }
        frames.clear();
        awaitParsed(System.nanoTime() + PARSE_WAIT_MS * 1_000_000L);
      }
    }
  }

  private static final int OBSERVE_ATTEMPTS = 3;

  /** The longest an observation waits for a document that has arrived to be parsed. */
  private static final long PARSE_WAIT_MS = 2_000;

  /**
   * Lets a document that has just arrived be parsed (its DOMContentLoaded), by {@code untilNanos}
   * and within {@link #PARSE_WAIT_MS}, so that the observation is not of an empty document whose
   * head and body have not been read yet (a form's result, observed the moment it committed). A
   * document still loading then is observed as it stands. On the lane's thread.
   */
  private void awaitParsed(long untilNanos) {
    long leftMs = Math.min(PARSE_WAIT_MS, (untilNanos - System.nanoTime()) / 1_000_000);
    if (leftMs <= 0) {
      return;
    }
    try {
      tab()
          .page
          .waitForLoadState(
              LoadState.DOMCONTENTLOADED, new Page.WaitForLoadStateOptions().setTimeout(leftMs));
    } catch (PlaywrightException stillLoading) {
      // Observed as it stands.
    }
  }

  /**
   * The observation of a page on its way to a document that has not come: there is nothing to read
   * until it does, and Chromium runs no script in the page meanwhile. On the lane's thread.
   */
  private ProviderObservation onItsWay() {
    observedTab = tab();
    tab().observedFrames = List.of();
    String text =
        "The page is on its way to "
            + tab().guards.destination()
            + ", which has not arrived yet. Observe again to see it when it comes, or open another"
            + " page.";
    return new ProviderObservation(
            tab().page.url(),
            "",
            text,
            text.length(),
            List.of(),
            0,
            false,
            tabs.takePageEvents(),
            0,
            null)
        .withTabs(tabs.listing(null));
  }

  /**
   * Until when ({@link System#nanoTime()}) an observation or an action on the page waits for the
   * document a navigation under way brings: half the action timeout, which is the observation's
   * own, and within the call's waits.
   */
  private long documentWaitEnd() {
    return Math.min(System.nanoTime() + policy.timeouts().actionMs() / 2 * 1_000_000L, waitsEnd());
  }

  /**
   * Gives the current tab a fresh page in place of one that is given up (it kept navigating itself,
   * or got no response headers). The old page is closed if it closes within {@value
   * #OLD_PAGE_CLOSE_MS} ms; else it is left to close with the context, listed as no tab. Chromium
   * can hold a page's close for as long as the call has left (seen with a page that loads many
   * cross-site frames, as the open's deadline ran out), and the call has a page to open meanwhile.
   * On the lane's thread.
   */
  private void replaceCurrentPage() {
    Page old = tabs.replaceCurrentPage();
    try {
      lane.briefly(
          OLD_PAGE_CLOSE_MS,
          () -> {
            old.close();
            return null;
          });
    } catch (PlaywrightException slow) {
      LOG.debug(
          "a page given up did not close within {} ms: {}", OLD_PAGE_CLOSE_MS, slow.toString());
    }
  }

  /** How long the replacement of a page waits for the old one to close. */
  private static final long OLD_PAGE_CLOSE_MS = 2_000;

  /** The page kept navigating itself while it was asked to go elsewhere, once and again. */
  private static final class SelfNavigating extends RuntimeException {
    SelfNavigating(PlaywrightException cause) {
      super(cause.getMessage(), cause);
    }
  }

  /** The page actions are this environment's own methods below, each on the lane's thread. */
  @Override
  public BrowserAction.Handler actions() {
    return this;
  }

  @Override
  public void navigate(BrowserAction.Navigate action) {
    refuseBeforeNavigating(action.url());
    navigateAdmitted(action.url());
  }

  /** Opens {@code url}, which the policy admitted, in the current tab. */
  private void navigateAdmitted(String url) {
    // The response headers and the load share the step's one timeout.
    long timeoutEnds = deadline().timeoutEnds();
    try {
      navigateOnce(url, timeoutEnds);
    } catch (SelfNavigating e) {
      // A page that keeps navigating itself (a script redirecting in a loop) cut the navigation
      // short twice: it is given up for a fresh page, on which the navigation starts over within
      // the same timeout. Leaving it is bounded by that timeout too, so a browser slow to let it go
      // fails the open, not the browser.
      call(
          "leaving a page that keeps navigating",
          () -> {
            replaceCurrentPage();
            return null;
          });
      try {
        navigateOnce(url, timeoutEnds);
      } catch (SelfNavigating again) {
        throw BrowserException.of(
            ErrorCode.BROWSER_ACTION_FAILED,
            "opening " + url + " failed: " + ChromiumLog.summary(again.getMessage()),
            again.getCause());
      }
    }
  }

  /**
   * Policy first: a destination the policy proxy would refuse, or a name that does not resolve, is
   * refused here, as the proxy would refuse it, without Chromium: a refusal costs a judgement, not
   * a navigation. An admitted one is judged again by the proxy as Chromium connects, and so is
   * every redirect and subresource.
   */
  private void refuseBeforeNavigating(String url) {
    URI uri;
    try {
      uri = URI.create(url);
    } catch (IllegalArgumentException e) {
      return; // Chromium reads it its own way, through the proxy
    }
    String scheme = String.valueOf(uri.getScheme()).toLowerCase(java.util.Locale.ROOT);
    if (uri.getHost() == null || !(scheme.equals("http") || scheme.equals("https"))) {
      return;
    }
    int port = uri.getPort() > 0 ? uri.getPort() : scheme.equals("https") ? 443 : 80;
    String host = NavigationOutcomes.host(url);
    DestinationPolicy.Verdict v = proxy.judgeNavigation(uri.getHost(), port);
    switch (v.outcome()) {
      case DENIED ->
          throw BrowserException.of(
              ErrorCode.BROWSER_POLICY_DENIED,
              "the project's network policy denies " + host + ": " + v.reason());
      case UNRESOLVED -> throw NavigationFailures.failed(host, PolicyProxy.unresolvedCause());
      case ADMITTED -> {}
    }
  }

  private void navigateOnce(String url, long timeoutEnds) {
    // The navigation ends with the timeout; the call's waits after it (a navigation the page
    // started
    // as it loaded) end within the call's deadline, and a call held past it fails the open before
    // the runtime stops it: not the browser.
    guarded(
        "opening " + url,
        false,
        () -> {
          try {
            for (int attempt = 1; ; attempt++) {
              try {
                var response =
                    tab()
                        .page
                        .navigate(
                            url,
                            new Page.NavigateOptions()
                                .setWaitUntil(
                                    com.microsoft.playwright.options.WaitUntilState.COMMIT)
                                .setTimeout(CallDeadline.msLeft(timeoutEnds)));
                if (response != null) {
                  tab().navigations.document(response);
                }
                break;
              } catch (PlaywrightException e) {
                if (e instanceof com.microsoft.playwright.TimeoutError
                    || !String.valueOf(e.getMessage())
                        .contains("is interrupted by another navigation")) {
                  throw e;
                }
                if (attempt == 2) {
                  throw new SelfNavigating(e);
                }
              }
            }
          } catch (com.microsoft.playwright.TimeoutError e) {
            // No response headers in time: this page is given up, and a fresh one takes its place.
            replaceCurrentPage();
            throw BrowserException.of(
                ErrorCode.BROWSER_NAVIGATION_FAILED,
                url
                    + " sent no response headers within "
                    + navigationTimeoutMs
                    + " ms; that page was closed and a fresh one opened",
                e);
          } catch (PlaywrightException e) {
            if (String.valueOf(e.getMessage()).contains("Cannot navigate to invalid URL")) {
              throw BrowserException.of(
                  ErrorCode.BROWSER_INVALID_URL,
                  "Chromium cannot navigate to " + url + ": it is not a valid URL");
            }
            if (String.valueOf(e.getMessage()).contains("net::ERR_")) {
              // Chromium commits its error page a moment after the navigation failed; wait for it,
              // so that it
              // cannot cut the next navigation short.
              try {
                tab()
                    .page
                    .waitForURL(
                        u -> u.startsWith("chrome-error:"),
                        new Page.WaitForURLOptions()
                            .setTimeout(2000)
                            .setWaitUntil(com.microsoft.playwright.options.WaitUntilState.COMMIT));
              } catch (PlaywrightException settled) {
                e.addSuppressed(settled);
              }
            }
            throw e;
          }
          try {
            // Not the whole navigation timeout: what follows (the guards' check, the observation)
            // must fit in the same call, and a page still loading then is observed as it stands.
            long loadDeadline = timeoutEnds - loadReserveMs(navigationTimeoutMs) * 1_000_000L;
            tab()
                .page
                .waitForLoadState(
                    LoadState.LOAD,
                    new Page.WaitForLoadStateOptions()
                        .setTimeout(Math.max(1, (loadDeadline - System.nanoTime()) / 1_000_000)));
          } catch (PlaywrightException e) {
            // Headers came; a page still loading is for the after-observation to show.
          }
          return null;
        });
  }

  /**
   * How much of an open's navigation timeout its wait for the load event leaves to what follows it
   * in the same call: a fifth, at most 5 s. A page whose subresources never finish would otherwise
   * take the whole timeout, and the call would overrun its deadline and cost the session its
   * browser.
   */
  static long loadReserveMs(long navigationTimeoutMs) {
    return Math.min(5_000, navigationTimeoutMs / 5);
  }

  @Override
  public void click(BrowserAction.Click action, ProviderElement element) {
    if (action.button().move() != null) {
      history(new BrowserAction.History(action.button().move()));
      return;
    }
    refuseBeforeDispatch(element);
    guarded(
        "the click",
        () -> {
          clickRequests = tab().guards.dataMark();
          // A datalist's suggestion is chosen, not clicked: Chromium draws it outside the page.
          if ("option".equals(element.role()) && action.plain() && suggestion(element)) {
            settle();
            return null;
          }
          if (action.offset() != null) {
            PointerActions.clickAtOffset(tab().page, resolve(element), element, action);
          } else if (action.plain()) {
            pointAt(
                element,
                "the click",
                point -> tab().page.mouse().click(point.x(), point.y()),
                (target, reach) -> target.click(reach.click(new ElementHandle.ClickOptions())));
          } else {
            pointAt(
                element,
                "the click",
                point ->
                    tab().page.mouse().click(point.x(), point.y(), PointerActions.mouse(action)),
                (target, reach) -> target.click(reach.click(PointerActions.handle(action))));
          }
          settle();
          return null;
        });
  }

  /** {@link Choices#suggestion} on the element, which this lets go of. */
  private boolean suggestion(ProviderElement element) {
    ElementHandle target = resolve(element);
    try {
      return Choices.suggestion(target, element);
    } finally {
      target.dispose();
    }
  }

  @Override
  public void drag(
      BrowserAction.Drag action, ProviderElement element, ProviderElement destination) {
    refuseBeforeDispatch(element);
    guarded(
        "the drag",
        () -> {
          ElementHandle from = resolve(element);
          try {
            ElementHandle to = resolve(destination);
            try {
              // The drop target first, then the dragged element: when both fit, both show.
              to.scrollIntoViewIfNeeded();
              HitTest.Reach reach =
                  HitTest.requireUncovered(tab().page, from, element, registryKey, "the drag");
              // The hit test's point is in the element's own frame's viewport: the page's mouse
              // takes it only for an element of the page's own document.
              boolean inFrame = element.target().contains("|");
              PointerActions.drag(
                  tab().page,
                  from,
                  inFrame ? null : reach.point(),
                  to,
                  element,
                  destination,
                  tab().dialogs::afterAnswer);
            } finally {
              to.dispose();
            }
          } finally {
            from.dispose();
          }
          nextFrame();
          return null;
        });
  }

  @Override
  public void upload(BrowserAction.Upload action, ProviderElement element) {
    guarded(
        "uploading",
        () -> {
          ElementHandle target = resolve(element);
          try {
            tab()
                .guards
                .choosing(
                    () -> {
                      PointerActions.upload(
                          tab().page, registryKey, target, element, action.files());
                      return null;
                    });
          } finally {
            target.dispose();
          }
          nextFrame();
          return null;
        });
  }

  @Override
  public void type(BrowserAction.Type action, ProviderElement element) {
    // Key by key from here, each its own call: the step's timeout holds the pauses between keys.
    guarded(
        "typing",
        () -> {
          if (element != null) {
            ElementHandle target = resolve(element);
            try {
              target.focus();
            } finally {
              target.dispose();
            }
          }
          long typing = watchTyping();
          PointerActions.type(tab().page, registryKey, action.text(), action.delayMs());
          settle();
          reactionToTyping(typing);
          return null;
        });
  }

  /**
   * Puts the pointer on {@code element}: an element ready as Playwright's checks would find it is
   * found and looked at in one script and pressed at the point it gave ({@code ready}), without a
   * handle's round trips or Playwright's stability wait (two animation frames), which is what a
   * click would mostly spend; any other goes to {@code checked} with its handle, after {@link
   * HitTest#requireUncovered} (whether it was ready by then). On the lane's thread.
   */
  private void pointAt(
      ProviderElement element,
      String what,
      java.util.function.Consumer<HitTest.Point> ready,
      java.util.function.BiConsumer<ElementHandle, HitTest.Reach> checked) {
    requireObservedTab();
    var point = PageScripts.readyPoint(tab().page, tab().observedFrames, registryKey, element);
    if (point.isPresent()) {
      ready.accept(point.get());
      return;
    }
    ElementHandle target = resolve(element);
    try {
      checked.accept(
          target, HitTest.requireUncovered(tab().page, target, element, registryKey, what));
    } finally {
      target.dispose();
    }
  }

  /**
   * A gesture at coordinates of the latest screenshot: the page's view is read first and compared
   * with the screenshot's ({@code BROWSER_STALE_SCREENSHOT} when it scrolled, navigated or was
   * resized), then the pointer acts there as a person's would, guarded as a click is.
   */
  @Override
  public void pointAt(BrowserAction.PointAt action) {
    guarded(
        "the " + action.gesture().name().toLowerCase(java.util.Locale.ROOT).replace('_', ' '),
        () -> {
          Page page = tab().page;
          String change = action.view().changeTo(Screenshots.view(page).inPage("page-" + tab().id));
          if (change != null) {
            throw BrowserException.of(
                    ErrorCode.BROWSER_STALE_SCREENSHOT,
                    "the screenshot the coordinates were taken from is stale: "
                        + change
                        + "; take a new screenshot with browser_screenshot and name points of it")
                .withUrl(page.url());
          }
          double x = action.x();
          double y = action.y();
          switch (action.gesture()) {
            case CLICK -> page.mouse().click(x, y);
            case DOUBLE_CLICK -> page.mouse().dblclick(x, y);
            case RIGHT_CLICK ->
                page.mouse()
                    .click(
                        x,
                        y,
                        new com.microsoft.playwright.Mouse.ClickOptions()
                            .setButton(com.microsoft.playwright.options.MouseButton.RIGHT));
            case MOVE -> page.mouse().move(x, y);
            case DRAG ->
                PointerActions.dragBetween(
                    page, x, y, action.toX(), action.toY(), tab().dialogs::afterAnswer);
            case SCROLL -> {
              page.mouse().move(x, y);
              page.mouse().wheel(action.deltaX(), action.deltaY());
            }
            case TYPE -> {
              page.mouse().click(x, y);
              PointerActions.type(page, registryKey, action.text(), 0);
            }
          }
          if (action.gesture() == BrowserAction.PointAt.Gesture.MOVE
              || action.gesture() == BrowserAction.PointAt.Gesture.DRAG
              || action.gesture() == BrowserAction.PointAt.Gesture.SCROLL) {
            nextFrame();
          } else {
            settle();
          }
          return null;
        });
  }

  @Override
  public void hover(BrowserAction.Hover action, ProviderElement element) {
    act(
        "hovering",
        () -> {
          pointAt(
              element,
              "the pointer",
              point -> tab().page.mouse().move(point.x(), point.y()),
              (target, reach) ->
                  target.hover(
                      new ElementHandle.HoverOptions()
                          .setForce(reach.ready())
                          .setPosition(reach.offset())));
          // Hover handlers run on the next frame: let the page open what it opens on hover first.
          nextFrame();
          return null;
        });
  }

  @Override
  public void fill(BrowserAction.Fill action, ProviderElement element) {
    String value = action.value();
    guarded(
        "filling the field",
        () -> {
          ElementHandle target = resolve(element);
          long typing;
          try {
            typing = watchTyping();
            // All but the last character at once; the last as a key, so that the page's own key
            // handling (an autocomplete's search) runs as it does for a person's typing.
            int last = value.isEmpty() ? 0 : value.offsetByCodePoints(value.length(), -1);
            String key = value.substring(last);
            if (TYPED_LAST.contains(String.valueOf(element.inputType()))
                && !key.isEmpty()
                && !Character.isISOControl(key.codePointAt(0))) {
              target.fill(value.substring(0, last));
              // The caret at the end, wherever the page's handling of the fill put it.
              target.evaluate(
                  "el => { el.focus(); try { const n = el.value.length;"
                      + " el.setSelectionRange(n, n); } catch (e) {} }");
              tab().page.keyboard().type(key);
            } else {
              target.fill(value);
            }
          } finally {
            target.dispose();
          }
          reactionToTyping(typing);
          return null;
        });
  }

  /**
   * The kinds of field whose last character browser_fill types as a key (a textarea or an editable
   * element has no input type, "null"); a date, number or colour field takes its whole value at
   * once.
   */
  private static final java.util.Set<String> TYPED_LAST =
      java.util.Set.of("null", "text", "search", "email", "url", "tel");

  /** Watches the page from before the keys; what it returns is for {@link #reactionToTyping}. */
  private long watchTyping() {
    TypingReactions.watch(tab().page, registryKey);
    return tab().guards.dataMark();
  }

  /**
   * Lets the page react to the keys just typed, before the observation after them: its document and
   * the requests for data started since {@code typing} ({@link #watchTyping}).
   */
  private void reactionToTyping(long typing) {
    Tab t = tab();
    TypingReactions.settle(
        t.page, registryKey, () -> t.guards.dataUnderWaySince(typing), waitsEnd());
  }

  @Override
  public List<DownloadedFile> takeDownloads() {
    return downloads.take();
  }

  @Override
  public List<String> originChain(ProviderElement element) {
    return call(
        "reading the field's origin",
        () -> {
          tab().dialogs.requireNone("filling the credential");
          ElementHandle target = resolve(element);
          try {
            return CredentialFields.originChain(target);
          } finally {
            target.dispose();
          }
        });
  }

  /**
   * The handle stays with {@link CredentialFields}, which masks the field in every later
   * screenshot.
   */
  @Override
  public int fillCredential(
      ProviderElement element, dev.periscope.api.host.Secret secret, List<String> expectedChain) {
    // Not an action a dialog stops: one the field's handlers open is dismissed and reported, so
    // the fill ends with its field masked and its length known.
    String what = "filling the credential";
    return call(
        what,
        () -> {
          Tab t = tab();
          t.dialogs.requireNone(what);
          return ActionPipeline.of(t.navigations, t.guards)
              .run(
                  what,
                  () ->
                      credentialFields.fill(
                          resolve(element),
                          element,
                          secret,
                          expectedChain,
                          policy.timeouts().actionMs(),
                          registryKey));
        });
  }

  @Override
  public void press(BrowserAction.Press action, ProviderElement element) {
    KeyChord chord = action.chord();
    if (element != null && "file".equals(element.inputType())) {
      refuseBeforeDispatch(element);
    }
    guarded(
        "pressing " + chord,
        () -> {
          Page page = tab().page;
          if (element == null && chord.types()) {
            PointerActions.refuseFocusedPassword(page, registryKey);
          }
          ElementHandle target = element == null ? null : resolve(element);
          long typing = watchTyping();
          try {
            if (target == null) {
              page.keyboard().press(chord.playwright());
            } else {
              target.press(chord.playwright());
            }
          } catch (RuntimeException | Error failed) {
            // Keys went down: let go of the modifiers, after the answer when a dialog stopped the
            // press (the page takes no input until then).
            if (PageDialogs.stoppedBy(failed)) {
              tab().dialogs.afterAnswer(() -> releaseModifiers(page, chord));
            } else {
              releaseModifiers(page, chord);
            }
            throw failed;
          } finally {
            if (target != null) {
              target.dispose();
            }
          }
          settle();
          reactionToTyping(typing);
          return null;
        });
  }

  /**
   * Lets go of a chord's modifiers after a press that failed part way (Playwright presses them one
   * by one and releases them only on success), so that no later key or click arrives with Control
   * held. Best effort: a page that is gone holds nothing.
   */
  private static void releaseModifiers(Page page, KeyChord chord) {
    List<String> held = new ArrayList<>();
    for (String modifier : chord.modifiers()) {
      held.addAll(
          modifier.equals("ControlOrMeta") ? List.of("Control", "Meta") : List.of(modifier));
    }
    for (int i = held.size() - 1; i >= 0; i--) {
      try {
        page.keyboard().up(held.get(i));
      } catch (RuntimeException gone) {
        // the page or its connection is gone: nothing is held there any more
      }
    }
  }

  @Override
  public void select(BrowserAction.Select action, ProviderElement element) {
    List<String> values = action.values();
    guarded(
        "choosing an option",
        () -> {
          ElementHandle target = resolve(element);
          try {
            Choices.select(target, element, values);
          } finally {
            target.dispose();
          }
          return null;
        });
  }

  @Override
  public void check(BrowserAction.Check action, ProviderElement element) {
    boolean checked = action.checked();
    guarded(
        checked ? "checking" : "unchecking",
        () -> {
          // A native checkbox or radio button is pressed where a person presses it, which for one
          // drawn as its label is the label (HitTest), and only when it is not as asked already.
          if ("checkbox".equals(element.inputType()) || "radio".equals(element.inputType())) {
            var point =
                PageScripts.readyPoint(tab().page, tab().observedFrames, registryKey, element);
            if (point.isPresent()) {
              ElementHandle target = resolve(element);
              try {
                if (!Boolean.valueOf(checked).equals(target.evaluate("el => el.checked"))) {
                  tab().page.mouse().click(point.get().x(), point.get().y());
                  if (!Boolean.valueOf(checked).equals(target.evaluate("el => el.checked"))) {
                    throw BrowserException.of(
                            ErrorCode.BROWSER_ACTION_FAILED,
                            "the click on \""
                                + element.name()
                                + "\" did not "
                                + (checked ? "check" : "uncheck")
                                + " it; the page may handle it otherwise")
                        .withUrl(tab().page.url());
                  }
                }
              } finally {
                target.dispose();
              }
              return null;
            }
          }
          ElementHandle target = resolve(element);
          try {
            HitTest.Reach reach =
                HitTest.requireUncovered(tab().page, target, element, registryKey, "the click");
            target.setChecked(
                checked,
                new ElementHandle.SetCheckedOptions()
                    .setForce(reach.ready())
                    .setPosition(reach.offset()));
          } finally {
            target.dispose();
          }
          return null;
        });
  }

  @Override
  public void scroll(BrowserAction.Scroll action, ProviderElement element) {
    BrowserAction.Scroll.To to = action.to();
    double pages = action.pages();
    act(
        "scrolling",
        () -> {
          switch (to) {
            case UP, DOWN ->
                tab()
                    .page
                    .evaluate(
                        "pages => window.scrollBy(0, pages * window.innerHeight)",
                        to == BrowserAction.Scroll.To.UP ? -pages : pages);
            case TOP -> tab().page.evaluate("() => window.scrollTo(0, 0)");
            case BOTTOM ->
                tab()
                    .page
                    .evaluate("() => window.scrollTo(0, document.documentElement.scrollHeight)");
            case ELEMENT -> {
              ElementHandle target = resolve(element);
              try {
                target.scrollIntoViewIfNeeded();
              } finally {
                target.dispose();
              }
            }
          }
          // Scroll events run on the next frame: let the page's handlers (lazy loading, sticky
          // headers) see it first.
          nextFrame();
          return null;
        });
  }

  /** Returns once the page has rendered its next frame and run what that frame queued. */
  private void nextFrame() {
    tab()
        .page
        .evaluate("() => new Promise(done => requestAnimationFrame(() => setTimeout(done, 0)))");
  }

  @Override
  public void waitFor(BrowserAction.Wait action, ProviderElement element) {
    BrowserAction.Wait.Until until = action.until();
    long timeoutMs = action.timeoutMs();
    double timeout = Math.min(timeoutMs, navigationTimeoutMs);
    act(
        "waiting for " + until.id(),
        () -> {
          switch (until) {
            case LOAD ->
                tab()
                    .page
                    .waitForLoadState(
                        LoadState.LOAD, new Page.WaitForLoadStateOptions().setTimeout(timeout));
            case NETWORK_IDLE ->
                tab()
                    .page
                    .waitForLoadState(
                        LoadState.NETWORKIDLE,
                        new Page.WaitForLoadStateOptions().setTimeout(timeout));
            case TEXT_VISIBLE, TEXT_HIDDEN, URL, DELAY ->
                PageWaits.run(tab().page, action, timeout);
            case ELEMENT_VISIBLE, ELEMENT_HIDDEN -> {
              if (action.byRole()) {
                PageWaits.run(tab().page, action, timeout);
                return null;
              }
              ElementHandle target;
              try {
                target = resolve(element);
              } catch (BrowserException gone) {
                if (until == BrowserAction.Wait.Until.ELEMENT_HIDDEN) {
                  return null;
                }
                throw gone;
              }
              try {
                target.waitForElementState(
                    until == BrowserAction.Wait.Until.ELEMENT_VISIBLE
                        ? ElementState.VISIBLE
                        : ElementState.HIDDEN,
                    new ElementHandle.WaitForElementStateOptions().setTimeout(timeout));
              } finally {
                target.dispose();
              }
            }
          }
          return null;
        });
  }

  @Override
  public void history(BrowserAction.History action) {
    BrowserAction.History.Move move = action.move();
    guarded(
        move.id(),
        () -> {
          if (move == BrowserAction.History.Move.RELOAD) {
            if (tab().page.url().equals("about:blank")) {
              throw BrowserException.of(
                      ErrorCode.BROWSER_POLICY_DENIED, "there is no page to reload")
                  .withUrl(tab().page.url());
            }
            tab().page.reload();
            return null;
          }
          String before = tab().page.url();
          Object response =
              move == BrowserAction.History.Move.BACK
                  ? tab().page.goBack()
                  : tab().page.goForward();
          boolean moved = response != null || !tab().page.url().equals(before);
          if (!moved) {
            throw BrowserException.of(
                    ErrorCode.BROWSER_POLICY_DENIED,
                    "there is no history entry to go " + move.id() + " to")
                .withUrl(tab().page.url());
          }
          return null;
        });
  }

  @Override
  public void answerDialog(BrowserAction.AnswerDialog action) {
    String what = "answering the dialog";
    call(
        what,
        () ->
            tab()
                .navigations
                .around(
                    what,
                    () -> {
                      int[] navigated = {0};
                      java.util.function.Consumer<com.microsoft.playwright.Frame> counted =
                          frame -> {
                            if (frame == tab().page.mainFrame()) {
                              navigated[0]++;
                            }
                          };
                      tab().page.onFrameNavigated(counted);
                      try {
                        tab()
                            .dialogs
                            .answer(
                                action.accept(),
                                action.promptText(),
                                type -> {
                                  try {
                                    // What the page does once answered is the answer's: a window
                                    // it opens then is a tab.
                                    ActionPipeline.of(tabs, tab().guards)
                                        .run(
                                            what,
                                            () -> {
                                              if (action.accept() && type.equals("beforeunload")) {
                                                // The page let go: the navigation it held
                                                // up goes on.
                                                awaitNavigation(() -> navigated[0] > 0);
                                              }
                                              settle();
                                              return null;
                                            });
                                  } catch (RuntimeException e) {
                                    throw e;
                                  } catch (Exception e) {
                                    throw new IllegalStateException(e);
                                  }
                                });
                      } finally {
                        tab().page.offFrameNavigated(counted);
                      }
                      return null;
                    }));
  }

  @Override
  public List<dev.periscope.api.browser.PageTab> tabs(BrowserAction.Tabs action) {
    switch (action.move()) {
      case OPEN -> {
        String url = action.url();
        refuseBeforeNavigating(url);
        call(
            "opening a tab",
            () -> {
              tab().dialogs.requireNone("opening a tab");
              return tabs.openBlank();
            });
        // The new tab is the current one whether or not its page loads, as in a browser.
        navigateAdmitted(url);
      }
      case SELECT ->
          call(
              "switching tabs",
              () -> {
                tab().dialogs.requireNone("switching tabs");
                tabs.select(action.tab());
                return null;
              });
      case CLOSE ->
          call(
              "closing the tab",
              () -> {
                tabs.close(action.tab());
                return null;
              });
      case LIST -> {}
    }
    return call("listing the tabs", () -> tabs.listing(null));
  }

  /**
   * Waits, within the navigation timeout, until the main frame navigated (to another URL, the same
   * one, or an error page).
   */
  private void awaitNavigation(java.util.function.BooleanSupplier navigated) {
    try {
      tab()
          .page
          .waitForCondition(
              navigated, new Page.WaitForConditionOptions().setTimeout(navigationTimeoutMs));
    } catch (PlaywrightException stayed) {
      // The observation after shows where the page is.
    }
  }

  /**
   * After a key press that may submit a form, let a started navigation load; a page still loading
   * is not a failure.
   */
  private void settle() {
    try {
      tab().page.waitForLoadState(LoadState.LOAD);
    } catch (PlaywrightException e) {
      // the after-observation shows what there is
    }
  }

  /**
   * Finds the element again and checks it is still the very node observed. On the lane's thread.
   */
  private ElementHandle resolve(ProviderElement element) {
    requireObservedTab();
    awaitDocument("reaching its elements", ErrorCode.BROWSER_STALE_REFERENCE);
    return PageScripts.resolve(tab().page, tab().observedFrames, registryKey, element);
  }

  /**
   * A page on its way to another document runs no script until that document comes (Chromium holds
   * them): waits for it, at most half the action timeout and within the call's waits, and otherwise
   * fails with {@code code} at once, instead of letting {@code what} wait out the call's whole
   * bound.
   */
  private void awaitDocument(String what, ErrorCode code) {
    Tab t = tab();
    if (!t.guards.awaitNavigation(documentWaitEnd())) {
      throw new BrowserException(
          code,
          "the page is on its way to "
              + t.guards.destination()
              + ", which has not arrived yet: "
              + what
              + " waits for that document; observe again, or open another page");
    }
  }

  /**
   * A PNG of the viewport or the full page. The device-pixel budget is checked before capture, the
   * byte budget after PNG encoding; either refusal is {@code BROWSER_POLICY_DENIED}.
   */
  @Override
  public Screenshot screenshot(boolean fullPage) {
    return call(
        "the screenshot",
        () -> {
          tab().dialogs.requireNone("taking a screenshot");
          awaitDocument("the screenshot", ErrorCode.BROWSER_ACTION_FAILED);
          Screenshot shot =
              Screenshots.capture(tab().page, fullPage, policy.screenshots(), credentialFields);
          return shot.view() == null
              ? shot
              : new Screenshot(
                  shot.png(),
                  shot.width(),
                  shot.height(),
                  shot.observationId(),
                  shot.url(),
                  shot.title(),
                  shot.view().inPage("page-" + tab().id));
        });
  }

  @Override
  public Extraction extract(String kind, ProviderElement region, int limit, int maxFieldChars) {
    return call(
        "extracting " + kind,
        () -> {
          tab().dialogs.requireNone("extracting " + kind);
          awaitDocument("extracting " + kind, ErrorCode.BROWSER_ACTION_FAILED);
          if (region != null) {
            requireObservedTab();
          }
          return PageScripts.extract(
              tab().page, tab().observedFrames, registryKey, kind, region, limit, maxFieldChars);
        });
  }

  @Override
  public CheckpointRef checkpoint() {
    EnvironmentState state = state();
    return state.write(call("saving the browser state", state::capture));
  }

  /** A checkpoint when the state changed since {@code current} ({@link EnvironmentState}). */
  @Override
  public java.util.Optional<CheckpointRef> checkpointIfChanged(
      java.util.Optional<CheckpointRef> current) {
    EnvironmentState state = state();
    return state.writeIfChanged(
        call("looking at the browser state", state::look),
        current,
        () -> call("saving the browser state", state::capture));
  }

  private EnvironmentState state() {
    return state.orElseThrow(
        () ->
            new BrowserException(
                ErrorCode.BROWSER_CHECKPOINT_UNAVAILABLE,
                "this browser environment keeps no checkpoints"));
  }

  /**
   * Opens the tabs a restored checkpoint held, each at its URL (http and https only) through the
   * policy as any open, within {@value #REOPEN_BUDGET_MS} ms (or the navigation timeout, if
   * shorter) for them all: the one that was current first, in the page that holds the session
   * storage the checkpoint kept (it was that tab's), and current again; the others after it in
   * their order. A tab that cannot be reopened stays blank, and the next observation's page events
   * say why. Called once, by the provider, right after a restore.
   */
  void reopenSaved() {
    BrowserStorage.SavedTabs saved = this.saved;
    this.saved = null;
    if (saved == null || saved.urls().isEmpty()) {
      return;
    }
    int current = Math.min(Math.max(0, saved.current()), saved.urls().size() - 1);
    List<String> urls = new java.util.ArrayList<>(saved.urls());
    urls.add(0, urls.remove(current));
    // The navigations share one deadline, as a step's would.
    CallDeadline reopen =
        CallDeadline.startingNow(Math.min(navigationTimeoutMs, REOPEN_BUDGET_MS), timeoutMarginMs);
    Tab first = tab();
    List<String> reopening = urls.subList(0, Math.min(urls.size(), tabs.max()));
    for (int i = 0; i < reopening.size(); i++) {
      String url = reopening.get(i);
      if (i > 0) {
        try {
          call("reopening a tab", tabs::openBlank);
        } catch (BrowserException full) {
          // The checkpoint's page events say which tabs were left out.
          reopenReport(url + " was not reopened: " + full.getMessage());
          continue;
        }
      }
      if (!(url.startsWith("http://") || url.startsWith("https://"))) {
        continue;
      }
      try {
        if (CallDeadline.passed(reopen.timeoutEnds())) {
          throw new BrowserException(
              ErrorCode.BROWSER_NAVIGATION_FAILED, "no time was left to reopen it");
        }
        refuseBeforeNavigating(url);
        within(
            reopen,
            () -> {
              navigateOnce(url, reopen.timeoutEnds());
              return null;
            });
      } catch (BrowserException | SelfNavigating e) {
        reopenReport("tab " + tab().id + " was not reopened at " + url + ": " + e.getMessage());
      }
    }
    call(
        "reopening the tabs",
        () -> {
          tabs.select(first.id);
          return null;
        });
  }

  private void reopenReport(String line) {
    call(
        "reopening the tabs",
        () -> {
          tabs.report(line);
          return null;
        });
  }

  /** The browser that is this environment's alone (a Grid session), closed with it; or empty. */
  private final Optional<Lane.Remote> remote;

  @Override
  public boolean attached() {
    return user != null;
  }

  @Override
  public Optional<String> placement() {
    return remote.flatMap(Lane.Remote::placement);
  }

  @Override
  public AutoCloseable screencast(
      int maxWidth,
      int maxHeight,
      java.util.function.Consumer<dev.periscope.api.browser.spi.LiveViewEnvironment.Frame> frames) {
    Page page = tab().page;
    com.microsoft.playwright.CDPSession cdp =
        call(
            "starting the live view",
            () -> {
              var started = LivePage.startScreencast(context, page, maxWidth, maxHeight, frames);
              tabs.personHolds(true);
              livePage = page;
              return started;
            });
    return () -> {
      try {
        call(
            "stopping the live view",
            () -> {
              try {
                // A page that holds a dialog open answers no command of this session until the
                // dialog is answered: it stops acknowledging frames now, and goes after the answer.
                LivePage.stopAcknowledging(cdp);
                if (page.isClosed()) {
                  // nothing to stop: the session went with its page
                } else if (tab().page == page && tab().dialogs.pending().isPresent()) {
                  tab().dialogs.afterAnswer(() -> LivePage.stopScreencast(cdp));
                } else {
                  LivePage.stopScreencast(cdp);
                }
              } finally {
                // Only now: a page the person's last input opened may have come meanwhile.
                livePage = null;
                tabs.personHolds(false);
              }
              return null;
            });
      } catch (RuntimeException gone) {
        // the page or the browser went first, and the screencast with it
      }
    };
  }

  /** The page a live view shows while one runs; the person's input goes there. Lane thread. */
  private Page livePage;

  @Override
  public void play(dev.periscope.api.browser.spi.LiveViewEnvironment.PersonInput input) {
    // As an action: a tab it opens is kept (not closed as a stray), a dialog it opens waits.
    act(
        "playing a person's input",
        () -> {
          Page shown = livePage != null ? livePage : tab().page;
          if (shown.isClosed()) {
            throw new BrowserException(
                ErrorCode.BROWSER_ENVIRONMENT_CLOSED, "the page the person was shown closed");
          }
          LivePage.play(shown, input);
          return null;
        });
  }

  @Override
  public dev.periscope.api.browser.spi.LiveViewEnvironment.State pageState() {
    // A dialog the page holds open answers no script: its URL and cookies are read all the same.
    return call(
        "reading the page's state",
        () -> LivePage.state(context, tab().page, tab().dialogs.pending().isPresent()));
  }

  /** The URI of the Grid node it runs on, when it runs on a Grid that said where. */
  Optional<String> gridNode() {
    return remote.flatMap(Lane.Remote::session).map(GridStatus.Session::node);
  }

  /** The tabs the checkpoint this environment was restored from held, until they are reopened. */
  private BrowserStorage.SavedTabs saved;

  /** How long a restore may spend reopening its tabs at most. */
  static final long REOPEN_BUDGET_MS = 20_000;

  /**
   * Closes this environment's context from any thread, past the call that may hold the lane: a
   * running operation fails at once, and the other environments on the browser go on. Waits for
   * nothing.
   */
  @Override
  public void abort() {
    aborted = true;
    // Where the call the runtime gave up on was held, for whoever reads the log after the fault.
    LOG.info("environment aborted; its browser's lane was at: {}", laneAt());
    if (user == null) {
      lane.closeNow(context, closeTimeoutMs);
    } else {
      // The context is the user's: its own tabs close, and the connection.
      // (Every page it had: the tab list is the lane thread's, and a closed page is no harm.)
      user.pages().forEach(p -> lane.closeNow(p, closeTimeoutMs));
      lane.closeNow(context.browser(), closeTimeoutMs);
    }
    // Its context is going: the lane counts one environment fewer now, so the session's next one
    // may take its place instead of starting a browser.
    leaveLane();
  }

  /** Where this environment's lane thread is now ({@link Lane#busyWith()}). */
  String laneAt() {
    return lane.busyWith();
  }

  private final java.util.concurrent.atomic.AtomicBoolean left =
      new java.util.concurrent.atomic.AtomicBoolean();

  private void leaveLane() {
    if (left.compareAndSet(false, true)) {
      onClosed.run();
    }
  }

  /**
   * Closes the proxy, then the context (unless an abort closed it), and leaves the lane. The
   * browser stays for the other environments.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    new Cleanup()
        // The proxy stops admitting and drops its sockets first: nothing the page still does gets
        // out meanwhile.
        .run(proxy::close)
        .run(
            () -> {
              if (lane.usable()) {
                lane.call(
                    () -> {
                      tabs.forEach(t -> t.dialogs.cancelExpiry());
                      context.browser().offDisconnected(disconnected);
                      try {
                        if (aborted) {
                          // closed already
                        } else if (user == null) {
                          context.close();
                        } else {
                          // The user's context stays, with every tab but the environment's own.
                          Cleanup closing = new Cleanup();
                          tabs.forEach(t -> closing.run(t.page::close));
                          closing.done();
                        }
                      } finally {
                        if (remote.isPresent()) {
                          // Its own browser, a session on a Grid: closing it ends that session.
                          // A Chromium the user runs: closing only disconnects.
                          lane.deadline(closeTimeoutMs);
                          lane.closeRemote(remote.get());
                        }
                      }
                      return null;
                    },
                    closeTimeoutMs);
              }
            })
        // Its tabs in a person's browser close even when the driver that opened them is gone.
        .run(
            () -> {
              if (user != null) {
                user.closeOpened();
              }
            })
        .run(driverExit)
        .run(this::leaveLane)
        .done();
  }
}
