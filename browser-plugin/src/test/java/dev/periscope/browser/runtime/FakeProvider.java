package dev.periscope.browser.runtime;

import dev.periscope.api.Cancellation;
import dev.periscope.api.browser.BrowserEnvironment;
import dev.periscope.api.browser.BrowserProvider;
import dev.periscope.api.browser.Capability;
import dev.periscope.api.browser.ProviderElement;
import dev.periscope.api.browser.ProviderObservation;
import dev.periscope.api.browser.Screenshot;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

/** A provider whose environments are in memory: for runtime tests where the browser is not what is tested. */
final class FakeProvider implements BrowserProvider {
  final String id;
  final boolean available;
  final AtomicInteger opens = new AtomicInteger();
  final List<FakeEnvironment> environments = new ArrayList<>();
  volatile CountDownLatch openGate;
  volatile boolean openCancelled;
  boolean disposed;

  FakeProvider(String id, boolean available) {
    this.id = id;
    this.available = available;
  }

  @Override
  public String id() {
    return id;
  }

  @Override
  public Set<Capability> capabilities() {
    return Set.of(Capability.SCREENSHOT);
  }

  @Override
  public boolean available() {
    return available;
  }

  @Override
  public Optional<String> unavailableReason() {
    return available ? Optional.empty() : Optional.of("install " + id + " with: apt-get install -y " + id);
  }

  @Override
  public BrowserEnvironment open(OpenRequest request, Cancellation cancellation) {
    opens.incrementAndGet();
    if (openGate != null) {
      try {
        openGate.await();
      } catch (InterruptedException e) {
        throw new IllegalStateException(e);
      }
    }
    openCancelled = cancellation.isCancelled();
    FakeEnvironment env = new FakeEnvironment();
    synchronized (environments) {
      environments.add(env);
    }
    return env;
  }

  @Override
  public void dispose() {
    disposed = true;
  }

  static final class FakeEnvironment implements BrowserEnvironment {
    final List<String> actions = new ArrayList<>();
    String url = "about:blank";
    boolean closed;

    @Override
    public ProviderObservation observe(ObservationBudget budget) {
      return new ProviderObservation(url, "Fake", "text of " + url, ("text of " + url).length(),
          List.of(new ProviderElement("0", "fp-button", "button", "button", "Advance", false, null, 1),
              new ProviderElement("1", "fp-link", "a", "link", "Next", false, null, 4)), 2);
    }

    @Override
    public void navigate(String url) {
      actions.add("navigate " + url);
      this.url = url;
    }

    @Override
    public void click(ProviderElement element) {
      actions.add("click " + element.name());
    }

    @Override
    public Screenshot screenshot(boolean fullPage) {
      return new Screenshot(new byte[0], 1, 1, null, url, "Fake");
    }

    @Override
    public void close() {
      closed = true;
    }
  }
}
