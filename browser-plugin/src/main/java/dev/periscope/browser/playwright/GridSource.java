package dev.periscope.browser.playwright;

import com.microsoft.playwright.PlaywrightException;
import dev.periscope.api.Cancellation;
import dev.periscope.api.browser.BrowserException;
import dev.periscope.api.browser.ErrorCode;
import dev.periscope.api.browser.spi.EnvironmentPolicy;
import dev.periscope.browser.policy.DestinationPolicy;
import dev.periscope.browser.policy.PolicyProxy;
import dev.periscope.browser.policy.Resolver;
import dev.periscope.browser.policy.Upstream;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The grid provider's browsers: each environment on a browser of its own that is a session on the
 * project's Selenium Grid ({@link PlaywrightSettings#grid()}), launched by its lane's driver and
 * ended with the environment ({@link BrowserPlace.Remote}); its policy proxy listens where the
 * Grid's nodes reach it. Two opens never count one free slot ({@link GridSlots}), and environments
 * move off nodes that drain ({@link GridDrains}).
 */
final class GridSource implements BrowserSource {
  private static final org.slf4j.Logger LOG =
      org.slf4j.LoggerFactory.getLogger(PlaywrightProvider.class);

  private static final String GRID_ID = PlaywrightProvider.GRID_ID;

  private final PlaywrightSettings settings;
  private final Executables.Lookup node;
  private final Resolver resolver;
  private final Upstream upstream;

  GridSource(
      PlaywrightSettings settings, Executables.Lookup node, Resolver resolver, Upstream upstream) {
    this.settings = settings;
    this.node = node;
    this.resolver = resolver;
    this.upstream = upstream;
    this.drains = settings.grid().map(GridDrains::new).orElse(null);
  }

  @Override
  public String id() {
    return GRID_ID;
  }

  @Override
  public void logStart() {
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
  }

  @Override
  public Optional<String> unavailableReason() {
    return settings.grid().isEmpty()
        ? Optional.of("no Selenium Grid is configured: set plugins.browser.grid.url in the project")
        : Optional.empty();
  }

  /**
   * When its nodes run on this machine, or the proxies listen on an address of this machine other
   * than loopback: then the browsers reach their proxies.
   */
  @Override
  public boolean enforcesPolicy() {
    return settings.grid().map(g -> g.gridOnLoopback() || !g.proxyOnLoopback()).orElse(false);
  }

  @Override
  public Obtain obtain() {
    return lane -> Optional.of(launchRemote(lane));
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

  /** What moves its environments off nodes that drain; null when no Grid is configured. */
  private final GridDrains drains;

  @Override
  public boolean awaitSlot(Cancellation cancellation) {
    return gridSlots.await(settings.grid().orElseThrow(), cancellation);
  }

  @Override
  public void launched() {
    gridSlots.launched();
  }

  /** The Grid's launch of the browser. */
  @Override
  public long obtainMs() {
    return settings.grid().orElseThrow().launchTimeoutMs();
  }

  @Override
  public PreparedContext prepare(
      Lane lane,
      Optional<Lane.Remote> remote,
      EnvironmentPolicy policy,
      DestinationPolicy destinations,
      String storageState) {
    return PreparedContext.make(
        remote.orElseThrow().browser(),
        new PolicyProxy(
            destinations, resolver, upstream, settings.grid().orElseThrow().proxyAddress()),
        policy.viewport(),
        storageState,
        settings.downloads().enabled());
  }

  @Override
  public BrowserPlace place(Optional<Lane.Remote> remote, PreparedContext prepared) {
    return new BrowserPlace.Remote(remote.orElseThrow());
  }

  @Override
  public PlaywrightSettings.Downloads downloads() {
    return settings.downloads();
  }

  @Override
  public Optional<RuntimeException> failure(RuntimeException e) {
    return e instanceof Lane.GridCapacityException
            || e instanceof Lane.GridUnreachableException
            || e instanceof GridLaunchException
        ? Optional.of(gridFailure(e))
        : Optional.empty();
  }

  /** Its environment is watched for its node's drain, when the Grid said which node it is on. */
  @Override
  public void opened(PlaywrightEnvironment environment) {
    if (drains != null) {
      environment.gridNode().ifPresent(node -> drains.watch(environment, node));
    }
  }

  @Override
  public void started() {
    logGrid();
  }

  @Override
  public Optional<GridSettings> grid() {
    return settings.grid();
  }

  @Override
  public void dispose() {
    Thread logging;
    synchronized (this) {
      logging = gridStatus;
    }
    if (logging != null) {
      // Its status request is bounded (GridClient); so is this wait.
      try {
        logging.join(15_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    if (drains != null) {
      drains.close();
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
}
