package dev.periscope.browser.runtime;

import dev.periscope.api.browser.BrowserEnvironment.ObservationBudget;
import dev.periscope.api.browser.BrowserException;
import dev.periscope.api.browser.BrowserLease;
import dev.periscope.api.browser.BrowserSessionId;
import dev.periscope.api.browser.ErrorCode;
import dev.periscope.api.browser.Observation;
import dev.periscope.api.browser.ProviderElement;
import dev.periscope.api.browser.ProviderObservation;
import dev.periscope.api.browser.Screenshot;
import dev.periscope.api.browser.Transition;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;

/** One caller's share of an environment. Every operation goes through the environment's queue. */
final class Lease implements BrowserLease {
  private final DefaultBrowserRuntime runtime;
  private final DefaultBrowserRuntime.Slot slot;
  private final Environment environment;
  private final AtomicBoolean released = new AtomicBoolean();

  Lease(DefaultBrowserRuntime runtime, DefaultBrowserRuntime.Slot slot, Environment environment) {
    this.runtime = runtime;
    this.slot = slot;
    this.environment = environment;
  }

  @Override
  public BrowserSessionId sessionId() {
    return environment.sessionId;
  }

  @Override
  public String environmentId() {
    return environment.id;
  }

  @Override
  public Observation observe(ObservationBudget budget) {
    return run(() -> observeNow(budget));
  }

  @Override
  public Transition navigate(String url, ObservationBudget budget) {
    checkUrl(url);
    return run(() -> transition("navigate", budget, () -> environment.delegate().navigate(url)));
  }

  @Override
  public Transition click(String observationId, String elementRef, ObservationBudget budget) {
    if (observationId == null || observationId.isBlank()) {
      throw new BrowserException(ErrorCode.BROWSER_OBSERVATION_REQUIRED,
          "element \"" + elementRef + "\" needs the observation_id it came from", environment.lastUrl(), false, null);
    }
    return run(() -> {
      ProviderElement target = environment.resolve(observationId, elementRef);
      return transition("click", budget, () -> environment.delegate().click(target));
    });
  }

  @Override
  public Screenshot screenshot(boolean fullPage) {
    return run(() -> {
      Refs refs = environment.latest();
      Observation o = refs != null ? refs.observation() : observeNow(new ObservationBudget(0, 0));
      var shot = environment.delegate().screenshot(fullPage);
      return new Screenshot(shot.png(), shot.width(), shot.height(), o.id(), o.url(), o.title());
    });
  }

  @Override
  public Optional<Observation> latestObservation() {
    Refs r = environment.latest();
    return r == null ? Optional.empty() : Optional.of(r.observation());
  }

  @Override
  public void close() {
    if (released.compareAndSet(false, true)) {
      runtime.release(slot);
    }
  }

  private <T> T run(java.util.function.Supplier<T> operation) {
    if (released.get()) {
      throw new BrowserException(ErrorCode.BROWSER_ENVIRONMENT_CLOSED, "this browser lease was released");
    }
    try {
      return environment.queued(operation);
    } catch (BrowserException e) {
      throw e.url() == null && environment.lastUrl() != null ? e.withUrl(environment.lastUrl()) : e;
    } catch (java.util.concurrent.CancellationException e) {
      throw e;
    } catch (RuntimeException e) {
      // A provider that broke its contract by throwing something else: still a failure the model can route.
      String reason = String.valueOf(e.getMessage()).lines().findFirst().orElse(e.getClass().getSimpleName());
      throw new BrowserException(ErrorCode.BROWSER_ACTION_FAILED, "the browser failed: " + reason,
          environment.lastUrl(), false, e);
    }
  }

  private Observation observeNow(ObservationBudget budget) {
    ProviderObservation p = environment.delegate().observe(budget);
    return environment.record(p, p.text().length() < p.totalTextChars(), p.elements().size() < p.totalElements());
  }

  private Transition transition(String action, ObservationBudget budget, Runnable act) {
    Refs before = environment.latest();
    long start = System.nanoTime();
    try {
      act.run();
    } catch (BrowserException e) {
      throw e;
    } catch (RuntimeException e) {
      throw new BrowserException(ErrorCode.BROWSER_ACTION_FAILED, action + " failed: " + e.getMessage(),
          environment.lastUrl(), false, e);
    }
    long acted = System.nanoTime();
    Observation after;
    try {
      after = observeNow(budget);
    } catch (RuntimeException e) {
      throw new BrowserException(ErrorCode.BROWSER_ACTION_EVIDENCE_FAILED,
          action + " ran but the page could not be observed afterwards: " + e.getMessage(), environment.lastUrl(),
          false, e);
    }
    long done = System.nanoTime();
    return new Transition("transition-" + UUID.randomUUID(), action, Transition.Outcome.SUCCEEDED,
        before == null ? null : before.observation().id(), after,
        new Transition.Metrics((done - start) / 1_000_000, (acted - start) / 1_000_000, (done - acted) / 1_000_000));
  }

  /** Only absolute http(s) URLs without embedded credentials are navigated to. */
  static void checkUrl(String url) {
    URI uri;
    try {
      uri = new URI(url);
    } catch (URISyntaxException | NullPointerException e) {
      throw new BrowserException(ErrorCode.BROWSER_INVALID_URL, "not a valid URL: " + url);
    }
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase();
    if (!scheme.equals("http") && !scheme.equals("https")) {
      throw new BrowserException(ErrorCode.BROWSER_INVALID_URL, "only absolute http and https URLs can be opened: " + url);
    }
    if (uri.getRawUserInfo() != null) {
      throw new BrowserException(ErrorCode.BROWSER_INVALID_URL,
          "URLs with embedded credentials are refused; use browser_fill_credential for logins");
    }
    if (uri.getHost() == null || uri.getHost().isEmpty()) {
      throw new BrowserException(ErrorCode.BROWSER_INVALID_URL, "the URL names no host: " + url);
    }
  }
}
