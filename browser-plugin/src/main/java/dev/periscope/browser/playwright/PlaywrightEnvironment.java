package dev.periscope.browser.playwright;

import com.microsoft.playwright.BrowserContext;
import com.microsoft.playwright.ElementHandle;
import com.microsoft.playwright.PlaywrightException;
import com.microsoft.playwright.options.LoadState;
import dev.periscope.api.browser.BrowserAction;
import dev.periscope.api.browser.BrowserException;
import dev.periscope.api.browser.ErrorCode;
import dev.periscope.api.browser.Extraction;
import dev.periscope.api.browser.ObservationBudget;
import dev.periscope.api.browser.Screenshot;
import dev.periscope.api.browser.spi.CallDeadline;
import dev.periscope.api.browser.spi.CheckpointRef;
import dev.periscope.api.browser.spi.CheckpointingEnvironment;
import dev.periscope.api.browser.spi.DownloadedFile;
import dev.periscope.api.browser.spi.EnvironmentFault;
import dev.periscope.api.browser.spi.EnvironmentPolicy;
import dev.periscope.api.browser.spi.LiveViewEnvironment;
import dev.periscope.api.browser.spi.ProviderElement;
import dev.periscope.api.browser.spi.ProviderObservation;
import dev.periscope.browser.Cleanup;
import dev.periscope.browser.policy.PolicyProxy;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One BrowserContext with its tabs ({@link Tab}: the first page, and each page an action of the
 * agent opened or {@code browser_tabs} did, up to {@code maxTabs}), on a lane of the browser pool
 * that other environments may share. Observations and actions are of the current tab. Every call
 * runs on the lane's thread, under the deadline the runtime handed down with the step ({@link
 * #within}). Its checkpoint is Playwright's storage state (cookies, local storage, IndexedDB) and
 * the page's session storage ({@link BrowserStorage}), written through {@link CheckpointFiles}.
 *
 * <p>What each action does to the page is in the rooms its {@link PlaywrightActions} finds it in;
 * observation, screenshot and extraction are {@link ObservationRoom}'s, the live view {@link
 * LiveViewRoom}'s. The rooms reach the current tab and its state through this class's
 * package-private surface: {@link #tab()}, {@link #call}, {@link #guarded}, {@link #act}, {@link
 * #resolve}, {@link #settle} and the like.
 */
final class PlaywrightEnvironment implements CheckpointingEnvironment, LiveViewEnvironment {
  private static final org.slf4j.Logger LOG =
      org.slf4j.LoggerFactory.getLogger(PlaywrightEnvironment.class);

  private final Lane lane;
  private final BrowserContext context;

  /** Set by {@link #abort()}: the context is closing, and nothing more may run on it. */
  private volatile boolean aborted;

  /** The tabs, and which is current: what observations and actions are of. */
  private final EnvironmentTabs tabs;

  private final Runnable onClosed;
  private final long closeTimeoutMs;
  private final EnvironmentPolicy policy;

  /** The downloads actions start, kept in quarantine until the runtime takes them. */
  private final PageDownloads downloads;

  private final PlaywrightSettings.Downloads downloadPolicy;

  /** The page-global name of its registry: random, so page scripts cannot rely on it. */
  private final String registryKey;

  private final AtomicBoolean closed = new AtomicBoolean();

  /** What its checkpoints are made of, when it keeps them. */
  private final Optional<EnvironmentState> state;

  /** Every connection of its browser goes through it; it closes before the context does. */
  private final PolicyProxy proxy;

  /** Where its context is: on the lane's Chromium, a Grid session's or the user's. */
  private final BrowserPlace place;

  private final CredentialFields credentialFields;

  /** What it notices of its browser's death, and tells the runtime once. */
  private final EnvironmentFaults faults;

  PlaywrightEnvironment(
      BrowserPlace place,
      Lane lane,
      PreparedContext prepared,
      EnvironmentPolicy policy,
      PlaywrightSettings settings,
      Runnable onClosed,
      Optional<StateCheckpoints> saving,
      PlaywrightSettings.Downloads downloadPolicy) {
    BrowserContext context = prepared.context();
    this.place = place;
    this.credentialFields = new CredentialFields(prepared.egress());
    PolicyProxy proxy = prepared.proxy();
    String registryKey = prepared.registryKey();
    this.downloadPolicy = downloadPolicy;
    // The other tabs' pages, as each action begins (the tabs are made below, before any action).
    this.downloads = new PageDownloads(downloadPolicy, this::otherTabsPages);
    this.proxy = proxy;
    this.registryKey = registryKey;
    this.policy = policy;
    this.closeTimeoutMs = settings.closeTimeoutMs();
    this.timeoutMarginMs = settings.timeoutMarginMs();
    this.lane = lane;
    this.faults = new EnvironmentFaults(lane, this::ended);
    this.context = context;
    this.onClosed = onClosed;
    // A page the context gets while an action runs is that action's: a tab. Any other is closed
    // (at the next call, when events arrive), and so is one past the tab limit.
    this.tabs =
        new EnvironmentTabs(
            context,
            prepared.page(),
            settings.maxTabs(),
            policy.timeouts().navigationMs(),
            new TabWatchers(this, downloads, settings.dialogTimeoutMs(), settings.console(), faults)
                ::equip,
            this::ended,
            place.user());
    this.state =
        saving.map(
            files ->
                new EnvironmentState(context, tabs, files, settings.maxCheckpointStorageBytes()));
    // Death, noticed as it happens: Playwright's events arrive while a call runs or the lane
    // pumps them between calls; the driver process is watched by the JVM.
    this.driverExit = faults.watch(context.browser());
    this.observation = new ObservationRoom(this);
    this.navigation = new NavigationRoom(this, prepared.tabs());
    this.fields = new FieldRoom(this);
    this.scripts = new ScriptRoom(this);
    this.liveView = new LiveViewRoom(this, lane);
    var pointer = new PointerRoom(this);
    var waits = new WaitAndScrollRoom(this);
    this.actions =
        new PlaywrightActions(
            pointer, fields, navigation, waits, new DialogAndTabRoom(this, navigation));
  }

  /**
   * Tab {@code t}'s page is given up (an action's navigation got no response headers in time): the
   * tab gets a fresh page in its place.
   */
  void givePageUp(Tab t) {
    navigation.replacePage(t);
  }

  /** The pages of the tabs other than the current one. */
  private java.util.Set<com.microsoft.playwright.Page> otherTabsPages() {
    return tabs.others();
  }

  private final ObservationRoom observation;
  private final NavigationRoom navigation;
  private final FieldRoom fields;
  private final ScriptRoom scripts;
  private final LiveViewRoom liveView;
  private final PlaywrightActions actions;

  /** The page actions, each in the room of its kind ({@link PlaywrightActions}). */
  @Override
  public BrowserAction.Handler actions() {
    return actions;
  }

  @Override
  public ProviderObservation observe(ObservationBudget budget) {
    return observation.observe(budget);
  }

  @Override
  public Screenshot screenshot(boolean fullPage) {
    return observation.screenshot(fullPage);
  }

  @Override
  public byte[] recordingFrame() {
    return observation.recordingFrame();
  }

  @Override
  public List<String> recordingComplaints() {
    return call("the pages' complaints", tabs::takeRecordedComplaints);
  }

  @Override
  public Extraction extract(String kind, ProviderElement region, int limit, int maxFieldChars) {
    return observation.extract(kind, region, limit, maxFieldChars);
  }

  /** Where scripts run, and where not: the origins a secret was filled on ({@link ScriptRoom}). */
  ScriptRoom scripts() {
    return scripts;
  }

  @Override
  public String scriptOrigin() {
    return scripts.origin();
  }

  @Override
  public BrowserAction.Evaluate.Evaluated evaluate(String expression, String origin, int maxChars) {
    return scripts.evaluate(expression, origin, maxChars);
  }

  @Override
  public List<String> originChain(ProviderElement element) {
    return fields.originChain(element);
  }

  @Override
  public int fillCredential(
      ProviderElement element, dev.periscope.api.host.Secret secret, List<String> expectedChain) {
    return fields.fillCredential(element, secret, expectedChain);
  }

  @Override // EgressRoutes, kept with the fields that hold secrets
  public boolean guardEgress(dev.periscope.api.browser.spi.EgressGuard g) {
    return fields.guardEgress(g);
  }

  @Override
  public AutoCloseable screencast(int maxW, int maxH, java.util.function.Consumer<Frame> frames) {
    return liveView.screencast(maxW, maxH, frames);
  }

  @Override
  public AutoCloseable watch(int maxW, int maxH, java.util.function.Consumer<Frame> frames) {
    return liveView.watch(maxW, maxH, frames);
  }

  @Override
  public void play(PersonInput input) {
    liveView.play(input);
  }

  @Override
  public State pageState() {
    return liveView.pageState();
  }

  /** Opens the tabs a restored checkpoint held: once, by the runtime, right after the open. */
  @Override
  public void reopenSaved() {
    navigation.reopenSaved();
  }

  @Override
  public boolean attached() {
    return place.attached();
  }

  @Override
  public Optional<String> placement() {
    return place.placement();
  }

  /** The URI of the Grid node it runs on, when it runs on a Grid that said where. */
  Optional<String> gridNode() {
    return place.gridNode();
  }

  /** This environment's policy proxy (tests attack it from another environment's page). */
  PolicyProxy proxy() {
    return proxy;
  }

  /** Its watch on the lane's driver; removed when it closes. */
  private final Runnable driverExit;

  /** The deadline handed down with the step running now ({@link #within}); null between steps. */
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
  CallDeadline deadline() {
    CallDeadline d = handed;
    return d != null ? d : CallDeadline.startingNow(policy.timeouts().longerMs(), timeoutMarginMs);
  }

  /** When the waits after an action end at the latest ({@link CallDeadline#waitsEnd()}). */
  long waitsEnd() {
    return lane.running().waitsEnd();
  }

  /**
   * The mark of the requests for data started before the latest click ({@link
   * PageGuards#dataMark}), until the observation after it has looked at them; -1 when none.
   */
  private long clickRequests = -1;

  /** The tab the latest observation was of: its refs name elements of no other tab. */
  private Tab observedTab;

  /** A click started: {@code mark} is the guards' mark of the requests for data before it. */
  void clickRequests(long mark) {
    clickRequests = mark;
  }

  /** The mark of the latest click's requests ({@link #clickRequests}), once; -1 when none. */
  long takeClickRequests() {
    long since = clickRequests;
    clickRequests = -1;
    return since;
  }

  /** The observation just made was of {@code t}. */
  void observed(Tab t) {
    observedTab = t;
  }

  EnvironmentTabs tabs() {
    return tabs;
  }

  String registryKey() {
    return registryKey;
  }

  EnvironmentPolicy policy() {
    return policy;
  }

  long timeoutMarginMs() {
    return timeoutMarginMs;
  }

  Lane lane() {
    return lane;
  }

  BrowserContext context() {
    return context;
  }

  CredentialFields credentialFields() {
    return credentialFields;
  }

  /**
   * {@code BROWSER_STALE_REFERENCE} when the current tab is not the one the latest observation was
   * of (a tab that closed itself between calls gave way to another).
   */
  void requireObservedTab() {
    if (observedTab != tab()) {
      throw BrowserException.of(
              ErrorCode.BROWSER_STALE_REFERENCE,
              "the observation was of another tab than the current one (tab "
                  + tab().id
                  + "); observe the page again")
          .withUrl(tab().page.url());
    }
  }

  /** Where its context is ({@link BrowserPlace}). */
  BrowserPlace place() {
    return place;
  }

  /** Whether this environment is closing or was aborted, for those that watch it from outside. */
  boolean ended() {
    return closed.get() || aborted;
  }

  /** {@link EnvironmentFaults#retire}: its Grid node drains. */
  boolean retire(String detail) {
    return faults.retire(detail);
  }

  /** The current tab. */
  Tab tab() {
    return tabs.current();
  }

  @Override
  public void onFault(java.util.function.Consumer<EnvironmentFault> listener) {
    faults.onFault(listener);
  }

  /** The page answers a trivial script, or fails at once: its own deadline is the runtime's. */
  @Override
  public void probe() {
    observation.probe();
  }

  /**
   * Runs an action on the lane's thread and then reports, as {@code BROWSER_POLICY_DENIED},
   * whatever the page guards blocked while it ran and a main document the network policy denied,
   * and as {@code BROWSER_NAVIGATION_FAILED} a main document that could not be reached. The guards
   * let a navigation the action started reach its headers first, so its outcome is this action's.
   */
  <T> T guarded(String what, java.util.concurrent.Callable<T> work) {
    return guarded(what, true, work);
  }

  /**
   * {@link #guarded}; {@code onDocument} when the work acts on the page's document (not an open,
   * which replaces it), which must have come first ({@link #awaitDocument}). The action passes
   * through the tab's pipeline ({@link Tab#acting}); the tab acted on is the one current as it
   * begins, whichever is current by the end (one that closes itself gives way).
   */
  <T> T guarded(String what, boolean onDocument, java.util.concurrent.Callable<T> work) {
    return call(what, () -> (onDocument ? tab().acting : tab().opening).run(what, work));
  }

  /**
   * Runs an action on the lane's thread: a dialog it opens stops it there and waits for the model
   * ({@link PageDialogs#around}); with one already open it fails {@code BROWSER_DIALOG_PENDING}.
   */
  <T> T act(String what, java.util.concurrent.Callable<T> work) {
    return call(what, () -> tab().unguarded.run(what, work));
  }

  void refuseBeforeDispatch(ProviderElement element) {
    PageGuards.refuseBeforeDispatch(element, downloadPolicy.enabled());
  }

  /**
   * Runs work on the lane's thread. A Playwright failure becomes {@code BROWSER_ACTION_FAILED} with
   * a one-line reason: the driver's JavaScript stack and its file paths never reach the model.
   */
  <T> T call(String what, java.util.concurrent.Callable<T> work) {
    if (aborted) {
      throw new BrowserException(
          ErrorCode.BROWSER_ENVIRONMENT_CLOSED, "this browser environment was aborted");
    }
    try {
      return lane.call(() -> liveView.following(work), deadline());
    } catch (PlaywrightException e) {
      faults.noticeDeath(e);
      throw BrowserException.of(
          ErrorCode.BROWSER_ACTION_FAILED,
          what + " failed: " + ChromiumLog.summary(e.getMessage()),
          e);
    } catch (RuntimeException e) {
      faults.noticeDeath(e);
      throw e;
    }
  }

  /**
   * Until when ({@link System#nanoTime()}) an observation or an action on the page waits for the
   * document a navigation under way brings: half the action timeout, which is the observation's
   * own, and within the call's waits.
   */
  long documentWaitEnd() {
    return Math.min(System.nanoTime() + policy.timeouts().actionMs() / 2 * 1_000_000L, waitsEnd());
  }

  @Override
  public List<DownloadedFile> takeDownloads() {
    return downloads.take();
  }

  /** Returns once the page has rendered its next frame and run what that frame queued. */
  void nextFrame() {
    tab()
        .page
        .evaluate("() => new Promise(done => requestAnimationFrame(() => setTimeout(done, 0)))");
  }

  /**
   * After a key press that may submit a form, let a started navigation load; a page still loading
   * is not a failure.
   */
  void settle() {
    try {
      tab().page.waitForLoadState(LoadState.LOAD);
    } catch (PlaywrightException e) {
      // the after-observation shows what there is
    }
  }

  /**
   * Finds the element again and checks it is still the very node observed. On the lane's thread.
   */
  ElementHandle resolve(ProviderElement element) {
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
  void awaitDocument(String what, ErrorCode code) {
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
   * Closes this environment's context from any thread, past the call that may hold the lane: a
   * running operation fails at once, and the other environments on the browser go on. Waits for
   * nothing.
   */
  @Override
  public void abort() {
    aborted = true;
    // Where the call the runtime gave up on was held, for whoever reads the log after the fault.
    LOG.info("environment aborted; its browser's lane was at: {}", laneAt());
    place.abort(lane, context, closeTimeoutMs);
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
                      context.browser().offDisconnected(faults.disconnected);
                      try {
                        if (!aborted) {
                          place.close(context, tabs);
                        }
                      } finally {
                        place.release(lane, closeTimeoutMs);
                      }
                      return null;
                    },
                    closeTimeoutMs);
              }
            })
        .run(place::closed)
        .run(driverExit)
        .run(this::leaveLane)
        .done();
  }
}
