package dev.periscope.browser.runtime;

import dev.periscope.api.Cancellation;
import dev.periscope.api.browser.BrowserAction;
import dev.periscope.api.browser.ObservationBudget;
import dev.periscope.api.browser.Screenshot;
import dev.periscope.api.browser.spi.BrowserEnvironment;
import dev.periscope.api.browser.spi.Capability;
import dev.periscope.api.browser.spi.CheckpointRef;
import dev.periscope.api.browser.spi.CheckpointingEnvironment;
import dev.periscope.api.browser.spi.CheckpointingProvider;
import dev.periscope.api.browser.spi.ProviderElement;
import dev.periscope.api.browser.spi.ProviderObservation;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A provider whose environments live in memory: for runtime tests where the browser is not what is
 * tested. Its opens and clicks can be held at a gate, so a test can act while they run.
 */
public class FakeProvider implements CheckpointingProvider {
  final String id;
  final boolean available;
  final Set<Capability> capabilities;
  public final AtomicInteger opens = new AtomicInteger();
  public final List<FakeEnvironment> environments = Collections.synchronizedList(new ArrayList<>());
  final List<String> destroyed = Collections.synchronizedList(new ArrayList<>());
  final List<CheckpointRef> restoredFrom = Collections.synchronizedList(new ArrayList<>());
  public volatile CountDownLatch openGate;

  /** The browser session of each open, in order. */
  public final List<String> openedSessions = new java.util.concurrent.CopyOnWriteArrayList<>();

  public volatile CountDownLatch clickGate;

  /** While set and closed, liveness checks of every environment wait for it (or for the abort). */
  public volatile CountDownLatch probeGate;

  /** While set and closed, navigations wait for it (or for the abort). */
  public volatile CountDownLatch navigateGate;

  /**
   * The cancellation of the latest open, and whether an open cancelled while it waited fails as a
   * real one does.
   */
  public volatile Cancellation lastOpenCancellation;

  public volatile boolean openFailsWhenCancelled;
  volatile RuntimeException checkpointFailure;

  /** Payloads written, and whether restore finds its payload gone. */
  public final AtomicInteger checkpointsWritten = new AtomicInteger();

  volatile boolean payloadMissing;
  volatile RuntimeException closeFailure;

  /** Whether its environments work in a browser someone else runs (as the cdp provider's do). */
  volatile boolean attaching;

  volatile String version = "fake-1";
  volatile boolean openCancelled;
  volatile boolean disposed;

  public FakeProvider(String id, boolean available) {
    this(id, available, Set.of(Capability.SCREENSHOT));
  }

  public FakeProvider(String id, boolean available, Set<Capability> capabilities) {
    this.id = id;
    this.available = available;
    this.capabilities = capabilities;
  }

  @Override
  public String id() {
    return id;
  }

  @Override
  public Set<Capability> capabilities() {
    // It reaches no network, so it keeps any network policy.
    var all = java.util.EnumSet.of(Capability.NETWORK_POLICY);
    all.addAll(capabilities);
    return all;
  }

  @Override
  public boolean available() {
    return available;
  }

  @Override
  public Optional<String> unavailableReason() {
    return available
        ? Optional.empty()
        : Optional.of("install " + id + " with: apt-get install -y " + id);
  }

  @Override
  public Optional<String> version() {
    return Optional.ofNullable(version);
  }

  @Override
  public BrowserEnvironment open(OpenRequest request, Cancellation cancellation) {
    opens.incrementAndGet();
    if (request != null) {
      openedSessions.add(request.sessionId().value());
    }
    lastOpenCancellation = cancellation;
    await(openGate);
    openCancelled = cancellation.isCancelled();
    if (openCancelled && openFailsWhenCancelled) {
      throw new java.util.concurrent.CancellationException("the open was cancelled");
    }
    FakeEnvironment env = new FakeEnvironment();
    environments.add(env);
    return env;
  }

  @Override
  public BrowserEnvironment restore(
      OpenRequest request, CheckpointRef checkpoint, Cancellation cancellation) {
    if (payloadMissing) {
      throw new dev.periscope.api.browser.spi.CheckpointMissingException(
          checkpoint.ref() + " is gone");
    }
    restoredFrom.add(checkpoint);
    return open(request, cancellation);
  }

  @Override
  public void destroyCheckpoint(CheckpointRef checkpoint) {
    destroyed.add(checkpoint.ref());
  }

  @Override
  public void dispose() {
    disposed = true;
  }

  private static void await(CountDownLatch gate) {
    if (gate != null) {
      try {
        if (!gate.await(10, TimeUnit.SECONDS)) {
          throw new IllegalStateException("gate never opened");
        }
      } catch (InterruptedException e) {
        throw new IllegalStateException(e);
      }
    }
  }

  /** One in-memory environment; it records what it was asked to do, in order. */
  public final class FakeEnvironment implements CheckpointingEnvironment, BrowserAction.Handler {
    public final List<String> actions = Collections.synchronizedList(new ArrayList<>());
    final CountDownLatch aborted = new CountDownLatch(1);
    public final CountDownLatch clickStarted = new CountDownLatch(1);
    public final CountDownLatch navigateStarted = new CountDownLatch(1);
    volatile String url = "about:blank";
    private int written;
    private volatile String lastWritten;

    /** Whether the state changed since the last checkpoint (the page may change it by itself). */
    volatile boolean dirty;

    public volatile boolean closed;
    volatile RuntimeException observeFailure;
    volatile RuntimeException clickFailure;
    public final java.util.concurrent.atomic.AtomicInteger probes =
        new java.util.concurrent.atomic.AtomicInteger();

    /** While set and closed, this environment's liveness checks wait for it (or for the abort). */
    public volatile CountDownLatch probeGate;

    private volatile java.util.function.Consumer<dev.periscope.api.browser.spi.EnvironmentFault>
        faultListener;
    volatile List<ProviderElement> elements =
        List.of(
            new ProviderElement("0", "fp-button", "button", "button", "Advance", false, null, 1),
            new ProviderElement("1", "fp-link", "a", "link", "Next", false, null, 4),
            new ProviderElement(
                "2", "fp-password", "input:password", "textbox", "Password", false, "password", 1));

    /** The egress guard the runtime handed this environment, if any. */
    public volatile dev.periscope.api.browser.spi.EgressGuard egressGuard;

    @Override
    public boolean guardEgress(dev.periscope.api.browser.spi.EgressGuard guard) {
      egressGuard = guard;
      return true;
    }

    /** Whether the runtime asked it to reopen its saved pages, and whether it was guarded then. */
    public volatile boolean reopened;

    public volatile boolean guardedWhenReopened;

    @Override
    public void reopenSaved() {
      reopened = true;
      guardedWhenReopened = egressGuard != null;
    }

    /** Runs at the start of the next observation, once: a test makes the browser die there. */
    public volatile Runnable onNextObserve;

    @Override
    public ProviderObservation observe(ObservationBudget budget) {
      Runnable hook = onNextObserve;
      onNextObserve = null;
      if (hook != null) {
        hook.run();
      }
      if (observeFailure != null) {
        throw observeFailure;
      }
      String text = "text of " + url;
      return new ProviderObservation(
          url,
          "Fake",
          text.substring(0, Math.min(text.length(), budget.maxTextChars())),
          text.length(),
          elements.subList(0, Math.min(elements.size(), budget.maxElements())),
          elements.size());
    }

    @Override
    public BrowserAction.Handler actions() {
      return this;
    }

    /** The deadline the runtime handed down with the step now running, as a provider reads it. */
    private volatile dev.periscope.api.browser.spi.CallDeadline handed;

    /** The deadlines the latest navigation, click and liveness check ran under. */
    public volatile dev.periscope.api.browser.spi.CallDeadline navigateDeadline,
        clickDeadline,
        probeDeadline;

    @Override
    public <T> T within(
        dev.periscope.api.browser.spi.CallDeadline deadline, java.util.function.Supplier<T> call) {
      handed = deadline;
      try {
        return call.get();
      } finally {
        handed = null;
      }
    }

    @Override
    public void navigate(BrowserAction.Navigate navigateAction) {
      navigateDeadline = handed;
      String url = navigateAction.url();
      actions.add("navigate " + url);
      navigateStarted.countDown();
      awaitOrAbort(navigateGate);
      this.url = url;
      this.dirty = true;
    }

    @Override
    public void click(BrowserAction.Click clickAction, ProviderElement element) {
      clickDeadline = handed;
      actions.add("click " + element.name());
      clickStarted.countDown();
      awaitOrAbort(clickGate);
      if (clickFailure != null) {
        throw clickFailure;
      }
    }

    @Override
    public void hover(BrowserAction.Hover hoverAction, ProviderElement element) {
      actions.add("hover " + element.name());
    }

    @Override
    public void drag(
        BrowserAction.Drag dragAction, ProviderElement element, ProviderElement destination) {
      actions.add("drag " + element.name() + " to " + destination.name());
    }

    @Override
    public void answerDialog(BrowserAction.AnswerDialog answer) {
      actions.add("dialog " + (answer.accept() ? "accepted" : "dismissed"));
    }

    @Override
    public void type(BrowserAction.Type typeAction, ProviderElement element) {
      actions.add(
          "type "
              + (element == null ? "(focus)" : element.name())
              + " ("
              + typeAction.text().length()
              + " chars)");
    }

    @Override
    public void fill(BrowserAction.Fill fillAction, ProviderElement element) {
      String value = fillAction.value();
      actions.add("fill " + element.name() + " (" + value.length() + " chars)");
    }

    @Override
    public List<String> originChain(ProviderElement element) {
      return List.of("https://example.test");
    }

    @Override
    public int fillCredential(
        ProviderElement element, dev.periscope.api.host.Secret secret, List<String> expected) {
      actions.add("fill credential into " + element.name());
      return secret.length();
    }

    @Override
    public void press(BrowserAction.Press pressAction, ProviderElement element) {
      String key = pressAction.key();
      actions.add("press " + key + (element == null ? "" : " on " + element.name()));
    }

    @Override
    public void select(BrowserAction.Select selectAction, ProviderElement element) {
      List<String> values = selectAction.values();
      actions.add("select " + values + " in " + element.name());
    }

    @Override
    public void check(BrowserAction.Check checkAction, ProviderElement element) {
      boolean checked = checkAction.checked();
      actions.add((checked ? "check " : "uncheck ") + element.name());
    }

    @Override
    public void scroll(BrowserAction.Scroll scrollAction, ProviderElement element) {
      String to = scrollAction.to().id();
      double pages = scrollAction.pages();
      actions.add("scroll " + to + " " + pages);
    }

    @Override
    public void waitFor(BrowserAction.Wait waitAction, ProviderElement element) {
      String until = waitAction.until().id();
      long timeoutMs = waitAction.timeoutMs();
      actions.add("wait " + until + " " + timeoutMs);
    }

    @Override
    public void history(BrowserAction.History historyAction) {
      String move = historyAction.move().id();
      actions.add(move);
    }

    @Override
    public Screenshot screenshot(boolean fullPage) {
      return new Screenshot(new byte[0], 1, 1, null, url, "Fake");
    }

    /** Writes only when a navigation changed the state since this environment last wrote. */
    @Override
    public java.util.Optional<CheckpointRef> checkpointIfChanged(
        java.util.Optional<CheckpointRef> current) {
      if (current.isPresent() && current.get().ref().equals(lastWritten) && !dirty) {
        return java.util.Optional.empty();
      }
      CheckpointRef ref = checkpoint();
      lastWritten = ref.ref();
      dirty = false;
      return java.util.Optional.of(ref);
    }

    @Override
    public CheckpointRef checkpoint() {
      if (checkpointFailure != null) {
        throw checkpointFailure;
      }
      int n = checkpointsWritten.incrementAndGet();
      String ref = "checkpoint-" + environments.indexOf(this);
      return new CheckpointRef(id, version, written++ == 0 ? ref : ref + "-" + n);
    }

    @Override
    public void abort() {
      aborted.countDown();
    }

    public boolean aborted() {
      return aborted.getCount() == 0;
    }

    @Override
    public void onFault(
        java.util.function.Consumer<dev.periscope.api.browser.spi.EnvironmentFault> listener) {
      faultListener = listener;
    }

    /** Dies as a browser would, telling the runtime's listener. */
    public void die(dev.periscope.api.browser.spi.EnvironmentFault.Cause cause, String detail) {
      faultListener.accept(new dev.periscope.api.browser.spi.EnvironmentFault(cause, detail));
    }

    @Override
    public void probe() {
      probeDeadline = handed;
      probes.incrementAndGet();
      awaitOrAbort(probeGate != null ? probeGate : FakeProvider.this.probeGate);
    }

    /**
     * Waits for the gate, if there is one, as a browser call would: until it opens or the browser
     * is aborted.
     */
    private void awaitOrAbort(CountDownLatch gate) {
      if (gate == null) {
        return;
      }
      try {
        while (!gate.await(5, TimeUnit.MILLISECONDS)) {
          if (aborted()) {
            throw new IllegalStateException("aborted while it waited");
          }
        }
      } catch (InterruptedException e) {
        throw new IllegalStateException(e);
      }
    }

    /** Set when close begins. */
    public volatile boolean closeStarted;

    /** While set and not counted down, close waits for it (up to 10 s). */
    public volatile CountDownLatch closeGate;

    @Override
    public boolean attached() {
      return attaching;
    }

    @Override
    public void close() {
      closeStarted = true;
      CountDownLatch gate = closeGate;
      if (gate != null) {
        try {
          gate.await(10, java.util.concurrent.TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      closed = true;
      if (closeFailure != null) {
        throw closeFailure;
      }
    }
  }
}
