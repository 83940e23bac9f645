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

  /**
   * How its browsers are obtained and placed: launched here, sessions on the project's Grid, or
   * tabs in the Chromium the user runs ({@link BrowserSource}).
   */
  private final BrowserSource source;

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
    this.settings = settings;
    this.resolver = resolver;
    this.upstream = upstream;
    this.chromium = Executables.chromium(settings.chromiumExecutable(), settings.headless());
    this.node = Executables.node(settings.nodeExecutable());
    this.checkpoints = checkpointDirectory.map(CheckpointFiles::new);
    this.source =
        switch (id) {
          case GRID_ID -> new GridSource(settings, node, resolver, upstream);
          case CDP_ID -> new CdpSource(settings, node, resolver);
          default -> new LocalSource(settings, chromium, node, resolver, upstream);
        };
    source.logStart();
    this.checkpoints.ifPresent(CheckpointFiles::sweepPartial);
    TempRoots.removeAbandoned(Path.of(System.getProperty("java.io.tmpdir")));
  }

  @Override
  public String id() {
    return source.id();
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
    if (source.enforcesPolicy()) {
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
    return source.policyRemedy();
  }

  @Override
  public boolean available() {
    return unavailableReason().isEmpty();
  }

  @Override
  public Optional<String> unavailableReason() {
    Optional<String> unavailable = source.unavailableReason();
    if (unavailable.isPresent()) {
      return unavailable;
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
    BrowserStorage.requireReadable(state, checkpoint.ref(), request.sessionId().value());
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
    BrowserSource.Obtain obtain = source.obtain();
    Lane lane;
    try {
      lane = pool.enter(cancellation);
    } catch (RuntimeException e) {
      throw openFailure(e, cancellation);
    }
    PlaywrightEnvironment environment = null;
    boolean launching = false;
    try {
      launching = source.awaitSlot(cancellation);
      environment =
          lane.call(
              () -> {
                Optional<Lane.Remote> remote = obtain.on(lane);
                PreparedContext prepared;
                try {
                  prepared = source.prepare(lane, remote, policy, destinations, storageState);
                } catch (RuntimeException e) {
                  remote.ifPresent(r -> closeRemote(lane, r, e));
                  throw e;
                }
                try {
                  prepared.context().setDefaultTimeout(policy.timeouts().actionMs());
                  prepared.context().setDefaultNavigationTimeout(policy.timeouts().navigationMs());
                  return new PlaywrightEnvironment(
                      source.place(remote, prepared),
                      lane,
                      prepared,
                      policy,
                      settings,
                      () -> pool.leave(lane),
                      checkpoints.map(
                          files ->
                              new StateCheckpoints(
                                  files,
                                  id(),
                                  version().orElseThrow(),
                                  restoredFrom,
                                  storageState)),
                      source.downloads());
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
              policy.timeouts().longerMs() + settings.timeoutMarginMs() + source.obtainMs());
      cancellation.throwIfCancelled();
      source.opened(environment);
      return environment;
    } catch (RuntimeException e) {
      if (environment != null) {
        environment.close();
      } else {
        pool.leave(lane);
      }
      if (source.reopensOnDeadLane()
          && !cancellation.isCancelled()
          && e instanceof PlaywrightException
          && !lane.usable()) {
        throw new LaneDied(lane.number, e);
      }
      if (!cancellation.isCancelled()) {
        Optional<RuntimeException> own = source.failure(e);
        if (own.isPresent()) {
          throw own.get();
        }
      }
      throw openFailure(e, cancellation);
    } finally {
      if (launching) {
        source.launched();
      }
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

  /**
   * Starts the first browser of the pool now, in the background, so that the first environment
   * finds it running. Does nothing when the provider is unavailable.
   */
  public void prelaunch() {
    if (available()) {
      pool().prelaunch();
      if (source.warmsProxies()) {
        warmup();
      }
      source.started();
    }
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
              source.spares().orElse(null),
              source.grid(),
              source.attaches());
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
    synchronized (this) {
      closing = pool;
      pool = null;
      warming = warmup;
    }
    try {
      source.dispose();
      if (warming != null) {
        // Its every step is bounded; it holds nothing once it ends.
        try {
          warming.join();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
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
