package dev.periscope.browser.playwright;

import com.microsoft.playwright.PlaywrightException;
import dev.periscope.api.Cancellation;
import dev.periscope.api.browser.BrowserException;
import dev.periscope.api.browser.ErrorCode;
import dev.periscope.api.browser.spi.BrowserEnvironment;
import dev.periscope.api.browser.spi.Capability;
import dev.periscope.api.browser.spi.CheckpointRef;
import dev.periscope.api.browser.spi.CheckpointingProvider;
import dev.periscope.api.browser.spi.EnvironmentPolicy;
import dev.periscope.browser.policy.DestinationPolicy;
import dev.periscope.browser.policy.PolicyProxy;
import dev.periscope.browser.policy.ProxyWarmup;
import dev.periscope.browser.policy.Resolver;
import dev.periscope.browser.policy.Upstream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.Set;

/**
 * The Playwright provider: each environment is an isolated BrowserContext with one page, with a
 * policy proxy of its own, on one of the pool's system Chromiums driven by Playwright through the
 * host's Node.js ({@link BrowserPool}). An environment is aborted by closing its context, which
 * leaves the others on that browser as they were. Everything on disk lives under one short temp
 * root that {@link #dispose()} removes.
 */
public final class PlaywrightProvider implements CheckpointingProvider {
  public static final String ID = "playwright";

  /** The id of the provider whose browsers are sessions on a Selenium Grid. */
  public static final String GRID_ID = "grid";

  /** The id of the provider that works in tabs of its own in a Chromium the user runs. */
  public static final String CDP_ID = "cdp";

  private static final org.slf4j.Logger LOG =
      org.slf4j.LoggerFactory.getLogger(PlaywrightProvider.class);

  private final PlaywrightSettings settings;

  /** Whether this is the grid provider: its browsers are sessions on the project's Grid. */
  private final boolean onGrid;

  /**
   * Whether this is the cdp provider: each environment is a tab of its own in the Chromium the user
   * runs at {@link PlaywrightSettings#cdp()}, attached over CDP.
   */
  private final boolean attaching;

  private final Executables.Lookup chromium;
  private final Executables.Lookup node;
  private final Optional<CheckpointFiles> checkpoints;
  private final Resolver resolver;
  private final Upstream upstream;
  private Path tempRoot;
  private BrowserPool pool;
  private Thread warmup;
  private Optional<Path> driverFiles;

  /** A provider without checkpoints: its sessions cannot resume. */
  public PlaywrightProvider(PlaywrightSettings settings) {
    this(settings, Optional.empty());
  }

  /**
   * A provider that keeps checkpoint payloads in {@code checkpointDirectory}. Starting it removes
   * the temp directories that a killed host left behind.
   */
  public PlaywrightProvider(PlaywrightSettings settings, Optional<Path> checkpointDirectory) {
    this(settings, checkpointDirectory, Resolver.system(), Upstream.direct());
  }

  /**
   * A provider whose policy proxies resolve names with {@code resolver} and dial through {@code
   * upstream}: tests answer as public DNS would and map public test addresses to loopback servers.
   */
  public PlaywrightProvider(
      PlaywrightSettings settings,
      Optional<Path> checkpointDirectory,
      Resolver resolver,
      Upstream upstream) {
    this(settings, checkpointDirectory, resolver, upstream, ID);
  }

  /**
   * The grid provider ({@link #GRID_ID}): the same environments, each on a browser of its own that
   * is a session on the project's Selenium Grid ({@link PlaywrightSettings#grid()}); unavailable
   * when the project names none.
   */
  public static PlaywrightProvider grid(
      PlaywrightSettings settings,
      Optional<Path> checkpointDirectory,
      Resolver resolver,
      Upstream upstream) {
    return new PlaywrightProvider(settings, checkpointDirectory, resolver, upstream, GRID_ID);
  }

  /**
   * The cdp provider ({@link #CDP_ID}): each environment a tab of its own in the Chromium the user
   * runs ({@link PlaywrightSettings#cdp()}), which it attaches to and only detaches from; it keeps
   * no checkpoints (the browser's state is the user's), and enforces the network policy only where
   * the project accepts request-level enforcement. Unavailable when the project names no Chromium.
   */
  public static PlaywrightProvider cdp(
      PlaywrightSettings settings, Resolver resolver, Upstream upstream) {
    return new PlaywrightProvider(settings, Optional.empty(), resolver, upstream, CDP_ID);
  }

  private PlaywrightProvider(
      PlaywrightSettings settings,
      Optional<Path> checkpointDirectory,
      Resolver resolver,
      Upstream upstream,
      String id) {
    this.onGrid = GRID_ID.equals(id);
    this.attaching = CDP_ID.equals(id);
    this.settings = settings;
    this.drains = onGrid ? settings.grid().map(GridDrains::new).orElse(null) : null;
    this.resolver = resolver;
    this.upstream = upstream;
    this.chromium = Executables.chromium(settings.chromiumExecutable());
    this.node = Executables.node(settings.nodeExecutable());
    this.checkpoints = checkpointDirectory.map(CheckpointFiles::new);
    if (attaching) {
      settings
          .cdp()
          .ifPresent(
              c ->
                  LOG.info(
                      "browser provider {}: the Chromium at {}, network policy {}, Node.js {}",
                      CDP_ID,
                      c.url(),
                      c.requestLevelPolicy() ? "checked per request" : "not enforced",
                      node.path().map(Path::toString).orElse("not found")));
    } else if (onGrid) {
      settings
          .grid()
          .ifPresent(
              g ->
                  LOG.info(
                      "browser provider {}: Selenium Grid {}, policy proxies on {}, Node.js {}",
                      GRID_ID,
                      g.url(),
                      g.proxyAddress(),
                      node.path().map(Path::toString).orElse("not found")));
    } else {
      LOG.info(
          "browser provider {}: Chromium {} ({}), Node.js {}",
          ID,
          chromium.path().map(Path::toString).orElse("not found"),
          settings.headless() ? "headless" : "headed",
          node.path().map(Path::toString).orElse("not found"));
    }
    this.checkpoints.ifPresent(CheckpointFiles::sweepPartial);
    TempRoots.removeAbandoned(Path.of(System.getProperty("java.io.tmpdir")));
  }

  @Override
  public String id() {
    return onGrid ? GRID_ID : attaching ? CDP_ID : ID;
  }

  /**
   * Screenshots and extraction always; checkpoints with a checkpoint directory; the network policy
   * where its proxies are reachable from the browsers: always here, and on a Grid when its nodes
   * run on this machine or the proxies listen on an address of this machine other than loopback.
   */
  @Override
  public Set<Capability> capabilities() {
    Set<Capability> c =
        new java.util.HashSet<>(Set.of(Capability.SCREENSHOT, Capability.EXTRACTION));
    if (attaching) {
      // Only by interception, where the project accepts that: the browser is not ours to proxy.
      if (settings.cdp().map(CdpSettings::requestLevelPolicy).orElse(false)) {
        c.add(Capability.NETWORK_POLICY);
      }
    } else if (!onGrid
        || settings.grid().map(g -> g.gridOnLoopback() || !g.proxyOnLoopback()).orElse(false)) {
      c.add(Capability.NETWORK_POLICY);
    }
    if (checkpoints.isPresent()) {
      c.add(Capability.CHECKPOINT);
    }
    return Set.copyOf(c);
  }

  /** The cdp provider's: the project may accept request-level enforcement. */
  @Override
  public Optional<String> policyRemedy() {
    return attaching
        ? Optional.of(
            "choose a provider that enforces the policy, or accept request-level enforcement, which is weaker (no DNS pinning; WebRTC, service"
                + " workers, worker WebSockets and redirects in cross-site frames are not covered), with"
                + " plugins.browser.cdp.requestLevelPolicy: true")
        : Optional.empty();
  }

  @Override
  public boolean available() {
    return unavailableReason().isEmpty();
  }

  @Override
  public Optional<String> unavailableReason() {
    if (onGrid && settings.grid().isEmpty()) {
      return Optional.of(
          "no Selenium Grid is configured: set plugins.browser.grid.url in the project");
    }
    if (attaching && settings.cdp().isEmpty()) {
      return Optional.of(
          "no running Chromium is configured: set plugins.browser.cdp.url in the project");
    }
    if (!onGrid && !attaching && chromium.path().isEmpty()) {
      return Optional.of(chromium.reason());
    }
    return node.path().isEmpty() ? Optional.of(node.reason()) : Optional.empty();
  }

  @Override
  public Optional<String> version() {
    // The payload is Playwright's storage state, so the Playwright release is the build that
    // matters.
    return Optional.of(
        "playwright-"
            + com.microsoft.playwright.Playwright.class.getPackage().getImplementationVersion()
            + "/storage-state-1");
  }

  /** The Chromium executable this provider drives, when found. */
  public Optional<Path> chromiumPath() {
    return chromium.path();
  }

  /**
   * Opens an environment as a new context on a browser of the pool. A cancellation while Chromium
   * starts ends the wait (the browser stays in the pool for the next open), and the open fails.
   */
  @Override
  public BrowserEnvironment open(OpenRequest request, Cancellation cancellation) {
    return open(request.policy(), cancellation, null, null);
  }

  /**
   * Opens an environment with the checkpoint's cookies and local storage. A payload that is gone is
   * {@link dev.periscope.api.browser.spi.CheckpointMissingException}, before anything starts.
   */
  @Override
  public BrowserEnvironment restore(
      OpenRequest request, CheckpointRef checkpoint, Cancellation cancellation) {
    String state = new String(checkpointFiles().read(checkpoint.ref()), StandardCharsets.UTF_8);
    return open(request.policy(), cancellation, state, checkpoint.ref());
  }

  @Override
  public void destroyCheckpoint(CheckpointRef checkpoint) {
    checkpointFiles().delete(checkpoint.ref());
  }

  private CheckpointFiles checkpointFiles() {
    return checkpoints.orElseThrow(
        () ->
            new BrowserException(
                ErrorCode.BROWSER_CHECKPOINT_UNAVAILABLE,
                "this Playwright provider keeps no checkpoints"));
  }

  private BrowserEnvironment open(
      EnvironmentPolicy policy,
      Cancellation cancellation,
      String storageState,
      String restoredFrom) {
    try {
      return openOnce(policy, cancellation, storageState, restoredFrom);
    } catch (LaneDied died) {
      // The lane's browser died as the open began (killed, or crashed, before the pool noticed):
      // the
      // pool retires that lane now, and the open is made again on another.
      LOG.info(
          "browser lane {} died as an environment opened on it; opening on another", died.lane);
      try {
        return openOnce(policy, cancellation, storageState, restoredFrom);
      } catch (LaneDied again) {
        throw openFailure((RuntimeException) again.getCause(), cancellation);
      }
    }
  }

  /** An open that failed because its lane's own browser had died: worth one more try elsewhere. */
  private static final class LaneDied extends RuntimeException {
    final int lane;

    LaneDied(int lane, RuntimeException cause) {
      super(cause.getMessage(), cause, false, false);
      this.lane = lane;
    }
  }

  private BrowserEnvironment openOnce(
      EnvironmentPolicy policy,
      Cancellation cancellation,
      String storageState,
      String restoredFrom) {
    cancellation.throwIfCancelled();
    DestinationPolicy destinations = DestinationPolicy.of(policy.network());
    BrowserPool pool = pool();
    Optional<CdpCheck> attachable = Optional.empty();
    if (attaching) {
      CdpCheck check = CdpCheck.of(settings.cdp().orElseThrow(), ATTACH_CHECK_MS);
      if (!check.ok()) {
        throw new BrowserException(
            ErrorCode.BROWSER_PROVIDER_UNAVAILABLE,
            check.detail() + (check.remedy() == null ? "" : ": " + check.remedy()));
      }
      attachable = Optional.of(check);
    }
    Optional<CdpCheck> attached = attachable;
    Lane lane;
    try {
      lane = pool.enter(cancellation);
    } catch (RuntimeException e) {
      throw openFailure(e, cancellation);
    }
    PlaywrightEnvironment environment = null;
    boolean launching = false;
    try {
      if (onGrid) {
        launching = gridSlots.await(settings.grid().orElseThrow(), cancellation);
      }
      environment =
          lane.call(
              () -> {
                Optional<Lane.Remote> remote =
                    onGrid
                        ? Optional.of(launchRemote(lane))
                        : attaching ? Optional.of(attach(lane, attached.get())) : Optional.empty();
                PreparedContext prepared;
                try {
                  prepared = prepared(lane, remote, policy, destinations, storageState);
                } catch (RuntimeException e) {
                  remote.ifPresent(r -> closeRemote(lane, r, e));
                  throw e;
                }
                try {
                  prepared.context().setDefaultTimeout(policy.timeouts().actionMs());
                  prepared.context().setDefaultNavigationTimeout(policy.timeouts().navigationMs());
                  return new PlaywrightEnvironment(
                      remote,
                      lane,
                      prepared,
                      policy,
                      settings.closeTimeoutMs(),
                      settings.timeoutMarginMs(),
                      () -> pool.leave(lane),
                      checkpoints.map(
                          files ->
                              new StateCheckpoints(
                                  files,
                                  id(),
                                  version().orElseThrow(),
                                  restoredFrom,
                                  storageState)),
                      settings.dialogTimeoutMs(),
                      settings.maxCheckpointStorageBytes(),
                      settings.maxTabs(),
                      // The user's browser downloads as the user set it; nothing here keeps it.
                      attaching
                          ? new PlaywrightSettings.Downloads(false, 0)
                          : settings.downloads());
                } catch (RuntimeException e) {
                  try {
                    prepared.discard();
                  } catch (RuntimeException closing) {
                    e.addSuppressed(closing);
                  }
                  remote.ifPresent(r -> closeRemote(lane, r, e));
                  throw e;
                }
              },
              // No step of the runtime's: the opening's own bound, the longer timeout and the
              // runtime's margin (and a Grid's launch).
              Math.max(policy.timeouts().actionMs(), policy.timeouts().navigationMs())
                  + settings.timeoutMarginMs()
                  + (onGrid ? settings.grid().orElseThrow().launchTimeoutMs() : 0));
      cancellation.throwIfCancelled();
      environment.reopenSaved();
      if (drains != null) {
        PlaywrightEnvironment watched = environment;
        environment.gridNode().ifPresent(node -> drains.watch(watched, node));
      }
      return environment;
    } catch (RuntimeException e) {
      if (environment != null) {
        environment.close();
      } else {
        pool.leave(lane);
      }
      if (!onGrid
          && !attaching
          && !cancellation.isCancelled()
          && e instanceof PlaywrightException
          && !lane.usable()) {
        throw new LaneDied(lane.number, e);
      }
      throw onGrid
              && !cancellation.isCancelled()
              && (e instanceof Lane.GridCapacityException
                  || e instanceof Lane.GridUnreachableException
                  || e instanceof GridLaunchException)
          ? gridFailure(e)
          : openFailure(e, cancellation);
    } finally {
      if (launching) {
        gridSlots.launched();
      }
    }
  }

  /** How long the Chromium the cdp provider attaches to may take to say its version. */
  private static final long ATTACH_CHECK_MS = 5_000;

  /**
   * On the lane's thread: a connection of its own to the Chromium the user runs, for one
   * environment; {@code check} said what it is.
   */
  private Lane.Remote attach(Lane lane, CdpCheck check) {
    CdpSettings cdp = settings.cdp().orElseThrow();
    try {
      return new Lane.Remote(
          lane.attach(cdp.url(), ATTACH_CHECK_MS * 2),
          Optional.empty(),
          Optional.of("attached to " + check.browser() + " at " + cdp.url()));
    } catch (PlaywrightException e) {
      throw new BrowserException(
          ErrorCode.BROWSER_PROVIDER_UNAVAILABLE,
          "could not attach to the Chromium at "
              + cdp.url()
              + ": "
              + ChromiumLog.summary(String.valueOf(e.getMessage()))
              + " (is it still running, and is its DevTools port open to this host?)",
          e);
    }
  }

  /** On the lane's thread: a browser of its own on the Grid for one environment. */
  private Lane.Remote launchRemote(Lane lane) {
    try {
      return lane.launchRemote(settings.grid().orElseThrow().launchTimeoutMs());
    } catch (PlaywrightException e) {
      throw new GridLaunchException(e, settings.grid().orElseThrow());
    }
  }

  /** The browsers this provider is starting on the Grid, so that two never count one free slot. */
  private final GridSlots gridSlots = new GridSlots();

  /** On a Grid: what moves its environments off nodes that drain; else null. */
  private final GridDrains drains;

  /** A remote browser the Grid did not start. */
  static final class GridLaunchException extends RuntimeException {
    /** Whether the Grid did not start the browser within the launch timeout. */
    final boolean timedOut;

    /**
     * Playwright's message with its call log, less what would show the Grid's header values (its
     * log quotes them; they may hold a gateway's token); the raw exception is not kept.
     */
    GridLaunchException(PlaywrightException cause, GridSettings grid) {
      super(redacted(String.valueOf(cause.getMessage()), grid), null, false, false);
      this.timedOut = cause instanceof com.microsoft.playwright.TimeoutError;
    }

    private static String redacted(String message, GridSettings grid) {
      String kept =
          String.join(
              "\n", message.lines().filter(l -> !l.contains("additional headers")).toList());
      for (String value : grid.headers().values()) {
        if (!value.isEmpty()) {
          kept = kept.replace(value, "[REDACTED]");
        }
      }
      return kept;
    }
  }

  /**
   * On the lane's thread: closes a remote browser whose environment failed to open, with a bound of
   * its own (the open's may be spent), which ends its Grid session.
   */
  private void closeRemote(Lane lane, Lane.Remote remote, RuntimeException e) {
    try {
      lane.deadline(settings.closeTimeoutMs());
      lane.closeRemote(remote);
    } catch (RuntimeException closing) {
      e.addSuppressed(closing);
    }
  }

  /**
   * On the lane's thread: the lane's spare context, given this environment's policy, when the
   * environment starts empty; else a context made now (a restore's, with the checkpoint's storage).
   */
  private PreparedContext prepared(
      Lane lane,
      Optional<Lane.Remote> remote,
      EnvironmentPolicy policy,
      DestinationPolicy destinations,
      String storageState) {
    if (attaching) {
      return PreparedContext.attached(
          remote.orElseThrow().browser(),
          settings.cdp().orElseThrow().url(),
          // The user's Chromium judges its own requests (UserTabs): the proxy only judges.
          PolicyProxy.judgeOnly(destinations, resolver),
          policy.viewport(),
          settings.cdp().orElseThrow().requestLevelPolicy());
    }
    if (remote.isPresent()) {
      return PreparedContext.make(
          remote.get().browser(),
          new PolicyProxy(
              destinations, resolver, upstream, settings.grid().orElseThrow().proxyAddress()),
          policy.viewport(),
          storageState,
          settings.downloads().enabled());
    }
    // A spare's viewport is its browser context's, fixed when it was made (a page resized later
    // would leave the context's next pages, a popup's, at the old size).
    if (storageState == null && policy.viewport().equals(SPARE_VIEWPORT)) {
      PreparedContext spare = lane.takeSpare();
      if (spare != null && !answers(spare)) {
        // Its renderer died while it waited: it is no one's loss, and a fresh one is made.
        try {
          spare.discard();
        } catch (RuntimeException gone) {
          // its context went with its renderer
        }
        spare = null;
      }
      if (spare != null) {
        spare.proxy().assign(destinations);
        return spare;
      }
    }
    return PreparedContext.make(
        lane.browser(),
        new PolicyProxy(destinations, resolver, upstream),
        policy.viewport(),
        storageState,
        settings.downloads().enabled());
  }

  private static boolean answers(PreparedContext spare) {
    try {
      spare.page().evaluate("1");
      return true;
    } catch (PlaywrightException e) {
      return false;
    }
  }

  /** The viewport of the contexts lanes make ahead of need: the one sessions get by default. */
  private static final EnvironmentPolicy.Viewport SPARE_VIEWPORT =
      new EnvironmentPolicy.Viewport(1280, 720);

  private static RuntimeException openFailure(RuntimeException e, Cancellation cancellation) {
    if (cancellation.isCancelled()) {
      return new java.util.concurrent.CancellationException("the browser open was cancelled");
    }
    if (e instanceof PlaywrightException p) {
      return new BrowserException(
          ErrorCode.BROWSER_PROVIDER_UNAVAILABLE,
          "Chromium could not be started: " + ChromiumLog.summary(p.getMessage()),
          p);
    }
    return e;
  }

  /** A browser the Grid could not give: the cause in words, with what to do about it. */
  private RuntimeException gridFailure(RuntimeException e) {
    GridSettings g = settings.grid().orElseThrow();
    String message = String.valueOf(e.getMessage());
    if (e instanceof Lane.GridCapacityException capacity && capacity.status.slots() == 0) {
      // Not a full Grid: one with no Chrome at all, where waiting longer would not help.
      return new BrowserException(
          ErrorCode.BROWSER_PROVIDER_UNAVAILABLE,
          "no node of the Selenium Grid at "
              + g.url()
              + " offered Chrome within "
              + g.queueTimeoutMs()
              + " ms (it has "
              + capacity.status.describe()
              + "): start a node with Chromium and chromium-driver (docs/operations.md: Running on Selenium Grid)",
          e);
    }
    if (e instanceof Lane.GridCapacityException capacity) {
      return new BrowserException(
          ErrorCode.BROWSER_CAPACITY,
          "the Selenium Grid at "
              + g.url()
              + " had no free slot within "
              + g.queueTimeoutMs()
              + " ms (plugins.browser.grid.queueTimeoutMs; it has "
              + capacity.status.describe()
              + "): try again later, or add nodes",
          e);
    }
    if (e instanceof Lane.GridUnreachableException) {
      message = "its status did not answer: " + message;
    }
    if (e instanceof GridLaunchException launch && launch.timedOut) {
      return new BrowserException(
          ErrorCode.BROWSER_PROVIDER_UNAVAILABLE,
          "the Selenium Grid at "
              + g.url()
              + " did not start a browser within "
              + g.launchTimeoutMs()
              + " ms (plugins.browser.grid.launchTimeoutMs), though it had a free slot: is its"
              + " node able to start Chromium (see the node's log)?",
          e);
    }
    return new BrowserException(
        ErrorCode.BROWSER_PROVIDER_UNAVAILABLE,
        "the Selenium Grid at "
            + g.url()
            + " gave no browser: "
            + ChromiumLog.summary(message)
            + " (is the Grid running and reachable, and does a node offer Chrome?)",
        e);
  }

  /**
   * Starts the first browser of the pool now, in the background, so that the first environment
   * finds it running. Does nothing when the provider is unavailable.
   */
  public void prelaunch() {
    if (available()) {
      pool().prelaunch();
      if (!attaching) {
        // A Chromium the user runs goes through no policy proxy: nothing to warm.
        warmup();
      }
      if (onGrid) {
        logGrid();
      }
    }
  }

  /** The thread that logs the Grid's status as the grid provider starts; dispose waits for it. */
  private Thread gridStatus;

  /** The grid provider's start: its Grid as it stands, in the log, without holding the start. */
  private synchronized void logGrid() {
    settings
        .grid()
        .ifPresent(
            g -> {
              gridStatus =
                  new Thread(
                      () -> {
                        GridCheck check = GridCheck.of(g);
                        if (check.ok()) {
                          LOG.info("browser provider {}: {}", GRID_ID, check.detail());
                        } else {
                          LOG.warn(
                              "browser provider {}: {}; {}",
                              GRID_ID,
                              check.detail(),
                              check.remedy());
                        }
                      },
                      "periscope-grid-status");
              gridStatus.setDaemon(true);
              gridStatus.start();
            });
  }

  /**
   * Loads what a first navigation needs of the JVM ({@link ProxyWarmup}) on a thread of its own
   * while the browser starts, once; {@link #dispose()} waits for it.
   */
  private synchronized void warmup() {
    if (warmup == null) {
      warmup = new Thread(() -> ProxyWarmup.run(upstream), "periscope-warmup");
      warmup.setDaemon(true);
      warmup.start();
    }
  }

  /** The pool, made on first use under the provider's temp root. */
  private synchronized BrowserPool pool() {
    if (!available()) {
      throw new BrowserException(
          ErrorCode.BROWSER_PROVIDER_UNAVAILABLE, unavailableReason().orElse("unavailable"));
    }
    if (pool == null) {
      pool =
          new BrowserPool(
              settings.browsers(),
              this::tempRoot,
              // A grid or cdp lane needs no Chromium here.
              chromium.path().orElse(null),
              node.path().get(),
              settings.headless(),
              this::driverFiles,
              settings.spare() && !onGrid && !attaching
                  ? browser ->
                      PreparedContext.make(
                          browser,
                          PolicyProxy.unassigned(resolver, upstream),
                          SPARE_VIEWPORT,
                          null,
                          settings.downloads().enabled())
                  : null,
              onGrid ? settings.grid() : Optional.empty(),
              attaching);
    }
    return pool;
  }

  /**
   * Playwright's driver, unpacked in the user's cache on the first lane's start and reused by every
   * lane after it; empty when the cache cannot be used, and each lane unpacks its own.
   */
  private synchronized Optional<Path> driverFiles() {
    if (driverFiles == null) {
      driverFiles = DriverFiles.unpacked(DriverFiles.defaultCache());
    }
    return driverFiles;
  }

  private synchronized Path tempRoot() {
    if (tempRoot == null) {
      tempRoot = TempRoots.create(Path.of(System.getProperty("java.io.tmpdir")));
    }
    return tempRoot;
  }

  /** Closes the pool's browsers and removes the temp root: by now every environment has closed. */
  @Override
  public void dispose() {
    BrowserPool closing;
    Thread warming;
    Thread logging;
    synchronized (this) {
      closing = pool;
      pool = null;
      warming = warmup;
      logging = gridStatus;
    }
    try {
      if (logging != null) {
        // Its status request is bounded (GridClient); so is this wait.
        try {
          logging.join(15_000);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      if (warming != null) {
        // Its every step is bounded; it holds nothing once it ends.
        try {
          warming.join();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      if (drains != null) {
        drains.close();
      }
      if (closing != null) {
        closing.close(settings.closeTimeoutMs());
      }
    } finally {
      synchronized (this) {
        deleteTree(tempRoot);
        tempRoot = null;
      }
    }
  }

  static void deleteTree(Path root) {
    if (root == null) {
      return;
    }
    try {
      // Tolerant of files that go while it walks: Playwright removes its own unpacked driver, and
      // a fault's close and the provider's disposal may remove the same tree.
      Files.walkFileTree(
          root,
          new java.nio.file.SimpleFileVisitor<>() {
            @Override
            public java.nio.file.FileVisitResult visitFile(
                Path file, java.nio.file.attribute.BasicFileAttributes attributes)
                throws IOException {
              Files.deleteIfExists(file);
              return java.nio.file.FileVisitResult.CONTINUE;
            }

            @Override
            public java.nio.file.FileVisitResult visitFileFailed(Path file, IOException e)
                throws IOException {
              if (e instanceof java.nio.file.NoSuchFileException) {
                return java.nio.file.FileVisitResult.CONTINUE;
              }
              throw e;
            }

            @Override
            public java.nio.file.FileVisitResult postVisitDirectory(Path dir, IOException e)
                throws IOException {
              if (e != null && !(e instanceof java.nio.file.NoSuchFileException)) {
                throw e;
              }
              Files.deleteIfExists(dir);
              return java.nio.file.FileVisitResult.CONTINUE;
            }
          });
    } catch (IOException e) {
      throw new UncheckedIOException("cannot remove the browser's temp directory " + root, e);
    }
  }
}
