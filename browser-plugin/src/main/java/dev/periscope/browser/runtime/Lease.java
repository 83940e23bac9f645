package dev.periscope.browser.runtime;

import dev.periscope.api.Cancellation;
import dev.periscope.api.browser.BrowserAction;
import dev.periscope.api.browser.BrowserEnvironment.ObservationBudget;
import dev.periscope.api.browser.BrowserException;
import dev.periscope.api.browser.BrowserLease;
import dev.periscope.api.browser.BrowserSessionId;
import dev.periscope.api.browser.ErrorCode;
import dev.periscope.api.browser.Extraction;
import dev.periscope.api.browser.Observation;
import dev.periscope.api.browser.ProviderElement;
import dev.periscope.api.browser.ProviderObservation;
import dev.periscope.api.browser.Screenshot;
import dev.periscope.api.browser.Transition;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * One caller's share of an environment. Every operation goes through the environment's queue; every admitted
 * action yields a transition, recorded with the runtime whether it succeeded or not.
 */
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
  public boolean usable() {
    return !released.get() && environment.usable();
  }

  @Override
  public Observation observe(ObservationBudget budget, Cancellation cancellation) {
    return run(cancellation, Rerun.READ, () -> observeNow(budget, true));
  }

  /**
   * Observes on the queue, with every secret filled in this session redacted; {@code shown} when the model sees
   * this observation. Caller holds the queue.
   */
  private Observation observeNow(ObservationBudget budget, boolean shown) {
    ProviderObservation seen = environment.step("observing the page", timeouts().actionMs(),
        () -> environment.delegate().observe(budget));
    return environment.record(runtime.redactions().observation(environment.sessionId, seen), shown);
  }

  private RuntimeSettings.Timeouts timeouts() {
    return environment.timeouts();
  }

  @Override
  public Transition act(BrowserAction action, ObservationBudget budget, Cancellation cancellation) {
    validate(action);
    return run(cancellation, rerun(action), () -> {
      Map<String, Object> record = describe(action);
      Runnable step = step(action, cancellation, record);
      if (action instanceof BrowserAction.FillCredential) {
        // Its browser calls are steps of their own: the time a person takes to approve is not the browser's.
        return transition(record, budget, cancellation, step);
      }
      return transition(record, budget, cancellation, () -> environment.step(describeStep(action),
          stepTimeoutMs(action), () -> {
            step.run();
            return null;
          }));
    });
  }

  /** What a call can do on the fresh browser that replaces one a fault ended. */
  private enum Rerun {
    /** It only reads the page: found the browser dead, it runs again on a fresh one, as it is. */
    READ,
    /** It names no ref of the lost page, so repeating it can succeed; but it acts, so only the caller repeats it. */
    REPEATABLE,
    /** It names a ref of the lost page, or moves through its history: it cannot succeed on another browser. */
    NEVER
  }

  private static Rerun rerun(BrowserAction action) {
    boolean namesNoRef = action instanceof BrowserAction.Navigate
        || (action instanceof BrowserAction.Press p ? p.elementRef() == null
        : action instanceof BrowserAction.Scroll s ? s.elementRef() == null
        : action instanceof BrowserAction.Wait w && w.elementRef() == null);
    return namesNoRef ? Rerun.REPEATABLE : Rerun.NEVER;
  }

  /**
   * How long the provider may take for an action, by its own timeouts: a navigation its navigation timeout, a wait
   * its own, anything that may start a navigation (a click, a key, a choice) its action timeout and then the
   * navigation timeout.
   */
  private long stepTimeoutMs(BrowserAction action) {
    RuntimeSettings.Timeouts t = timeouts();
    if (action instanceof BrowserAction.Navigate || action instanceof BrowserAction.History) {
      return t.navigationMs();
    }
    if (action instanceof BrowserAction.Wait w) {
      return Math.min(w.timeoutMs(), t.navigationMs());
    }
    if (action instanceof BrowserAction.Scroll) {
      return t.actionMs();
    }
    return t.actionThenNavigationMs();
  }

  private static String describeStep(BrowserAction action) {
    return action instanceof BrowserAction.Navigate ? "opening the page" : "the " + action.kind();
  }

  /** Checks what can be checked before the queue: URLs, keys, bounds, and that refs come with observations. */
  private void validate(BrowserAction action) {
    if (action instanceof BrowserAction.Navigate n) {
      checkUrl(n.url());
    } else if (action instanceof BrowserAction.Click c) {
      requireObservation(c.observationId(), c.elementRef());
    } else if (action instanceof BrowserAction.Fill f) {
      requireObservation(f.observationId(), f.elementRef());
    } else if (action instanceof BrowserAction.FillCredential f) {
      requireObservation(f.observationId(), f.elementRef());
      if (f.credentialRef() == null || f.credentialRef().isBlank()) {
        throw invalid("/credential_ref: a credential reference is required");
      }
    } else if (action instanceof BrowserAction.Select s) {
      requireObservation(s.observationId(), s.elementRef());
      if (s.values().isEmpty()) {
        throw invalid("/values: choose at least one option");
      }
    } else if (action instanceof BrowserAction.Check c) {
      requireObservation(c.observationId(), c.elementRef());
    } else if (action instanceof BrowserAction.Press p) {
      if (!BrowserAction.KEYS.contains(p.key())) {
        throw invalid("/key: one of " + String.join(", ", BrowserAction.KEYS) + " is required (found " + p.key() + ")");
      }
      optionalElement(p.observationId(), p.elementRef());
    } else if (action instanceof BrowserAction.Scroll s) {
      if (!List.of("up", "down", "top", "bottom", "element").contains(s.to())) {
        throw invalid("/to: one of up, down, top, bottom, element is required");
      }
      if (!(s.pages() > 0 && s.pages() <= 20)) {
        throw invalid("/pages: a number greater than 0 and at most 20 is required (found " + s.pages() + ")");
      }
      if (s.to().equals("element") && s.elementRef() == null) {
        throw invalid("/element_ref: scrolling to an element needs its ref");
      }
      optionalElement(s.observationId(), s.elementRef());
    } else if (action instanceof BrowserAction.Wait w) {
      if (!List.of("load", "network-idle", "element-visible", "element-hidden").contains(w.until())) {
        throw invalid("/until: one of load, network-idle, element-visible, element-hidden is required");
      }
      if (w.until().startsWith("element-") && w.elementRef() == null) {
        throw invalid("/element_ref: waiting for an element needs its ref");
      }
      if (w.timeoutMs() < 1 || w.timeoutMs() > 120_000) {
        throw invalid("/timeout_ms: an integer from 1 to 120000 is required (found " + w.timeoutMs() + ")");
      }
      optionalElement(w.observationId(), w.elementRef());
    } else if (action instanceof BrowserAction.History h) {
      if (!List.of("back", "forward", "reload").contains(h.move())) {
        throw invalid("unknown history move " + h.move());
      }
    }
  }

  /** The provider step of an action, its targets resolved against the newest observation. Caller holds the queue. */
  private Runnable step(BrowserAction action, Cancellation cancellation, Map<String, Object> record) {
    var env = environment.delegate();
    if (action instanceof BrowserAction.Navigate n) {
      return () -> env.navigate(n.url());
    }
    if (action instanceof BrowserAction.Click c) {
      ProviderElement target = environment.resolve(c.observationId(), c.elementRef());
      return () -> env.click(target);
    }
    if (action instanceof BrowserAction.Fill f) {
      ProviderElement target = environment.resolve(f.observationId(), f.elementRef());
      if ("password".equals(target.inputType())) {
        throw new BrowserException(ErrorCode.BROWSER_PASSWORD_INPUT_FORBIDDEN, "element \"" + f.elementRef()
            + "\" is a password field; fill it with browser_fill_credential, which never shows the value to the model");
      }
      return () -> env.fill(target, f.value());
    }
    if (action instanceof BrowserAction.FillCredential f) {
      ProviderElement target = environment.resolve(f.observationId(), f.elementRef());
      // The channel resolves, checks the origins, asks, and fills; the session redacts the secret from then on.
      return () -> record.put("filled_chars", runtime.credentials().fill(credentialField(target),
          f.credentialRef(), cancellation, secret -> runtime.redactions().remember(environment.sessionId,
              f.credentialRef(), secret)));
    }
    if (action instanceof BrowserAction.Press p) {
      ProviderElement target = resolveOptional(p.observationId(), p.elementRef());
      return () -> env.press(target, p.key());
    }
    if (action instanceof BrowserAction.Select s) {
      ProviderElement target = environment.resolve(s.observationId(), s.elementRef());
      return () -> env.select(target, s.values());
    }
    if (action instanceof BrowserAction.Check c) {
      ProviderElement target = environment.resolve(c.observationId(), c.elementRef());
      return () -> env.check(target, c.checked());
    }
    if (action instanceof BrowserAction.Scroll s) {
      ProviderElement target = resolveOptional(s.observationId(), s.elementRef());
      return () -> env.scroll(s.to(), s.pages(), target);
    }
    if (action instanceof BrowserAction.Wait w) {
      ProviderElement target = resolveOptional(w.observationId(), w.elementRef());
      return () -> env.waitFor(w.until(), target, w.timeoutMs());
    }
    BrowserAction.History h = (BrowserAction.History) action;
    return () -> env.history(h.move());
  }

  /** A field as the credential channel reaches it: reading its origins and filling it are steps of their own. */
  private CredentialChannel.Field credentialField(ProviderElement target) {
    var env = environment.delegate();
    return new CredentialChannel.Field() {
      @Override
      public String name() {
        return target.name();
      }

      @Override
      public List<String> originChain() {
        return environment.step("reading the field's origin", timeouts().actionMs(), () -> env.originChain(target));
      }

      @Override
      public int fill(dev.periscope.api.host.Secret secret, List<String> expectedChain) {
        return environment.step("filling the credential", timeouts().actionThenNavigationMs(),
            () -> env.fillCredential(target, secret, expectedChain));
      }
    };
  }

  /** How a transition records the action: never a fill's value, only its length. */
  private static Map<String, Object> describe(BrowserAction action) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("kind", action.kind());
    if (action instanceof BrowserAction.Navigate n) {
      m.put("url", n.url());
    } else if (action instanceof BrowserAction.Click c) {
      m.put("element_ref", c.elementRef());
    } else if (action instanceof BrowserAction.Fill f) {
      m.put("element_ref", f.elementRef());
      m.put("value", "[REDACTED]");
      m.put("value_length", f.value().length());
    } else if (action instanceof BrowserAction.FillCredential f) {
      m.put("element_ref", f.elementRef());
      m.put("credential_ref", f.credentialRef());
      m.put("value", "[REDACTED]");
    } else if (action instanceof BrowserAction.Press p) {
      putIfPresent(m, "element_ref", p.elementRef());
      m.put("key", p.key());
    } else if (action instanceof BrowserAction.Select s) {
      m.put("element_ref", s.elementRef());
      m.put("values", s.values());
    } else if (action instanceof BrowserAction.Check c) {
      m.put("element_ref", c.elementRef());
      m.put("checked", c.checked());
    } else if (action instanceof BrowserAction.Scroll s) {
      m.put("to", s.to());
      m.put("pages", s.pages());
      putIfPresent(m, "element_ref", s.elementRef());
    } else if (action instanceof BrowserAction.Wait w) {
      m.put("until", w.until());
      m.put("timeout_ms", w.timeoutMs());
      putIfPresent(m, "element_ref", w.elementRef());
    }
    return m;
  }

  private static void putIfPresent(Map<String, Object> m, String key, Object value) {
    if (value != null) {
      m.put(key, value);
    }
  }

  private void optionalElement(String observationId, String elementRef) {
    if (elementRef != null) {
      requireObservation(observationId, elementRef);
    }
  }

  private ProviderElement resolveOptional(String observationId, String elementRef) {
    return elementRef == null ? null : environment.resolve(observationId, elementRef);
  }

  private BrowserException invalid(String message) {
    return new BrowserException(ErrorCode.BROWSER_INVALID_ARGUMENT, message, environment.lastUrl(), false, null);
  }

  @Override
  public Screenshot screenshot(boolean fullPage, Cancellation cancellation) {
    return run(cancellation, Rerun.READ, () -> {
      Refs refs = environment.latest();
      Observation o = refs != null ? refs.observation()
          : observeNow(new ObservationBudget(0, 0), false);
      var shot = environment.step("the screenshot", timeouts().actionMs(),
          () -> environment.delegate().screenshot(fullPage));
      return new Screenshot(shot.png(), shot.width(), shot.height(), o.id(), o.url(), o.title());
    });
  }

  @Override
  public Extraction extract(String kind, String observationId, String regionRef, int limit, int maxFieldChars,
      Cancellation cancellation) {
    optionalElement(observationId, regionRef);
    return run(cancellation, regionRef == null ? Rerun.READ : Rerun.NEVER, () -> {
      ProviderElement region = resolveOptional(observationId, regionRef);
      // The provider cuts each value a little past the limit and the cut to the limit follows redaction, so the
      // caller's choice of limit cannot end a value inside a secret and show its first characters.
      Extraction raw = environment.step("extracting " + kind, timeouts().actionMs(),
          () -> environment.delegate().extract(kind, region, limit, maxFieldChars + Redactions.CUT_SLACK));
      Extraction e = Redactions.cut(runtime.redactions().extraction(environment.sessionId, raw), maxFieldChars);
      return new Extraction(kind, environment.lastUrl(), regionRef == null ? null : observationId, e.columns(),
          e.rows(), e.total());
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

  private void requireObservation(String observationId, String elementRef) {
    if (observationId == null || observationId.isBlank()) {
      throw new BrowserException(ErrorCode.BROWSER_OBSERVATION_REQUIRED,
          "element \"" + elementRef + "\" needs the observation_id it came from", environment.lastUrl(), false, null);
    }
  }

  /**
   * Runs on the queue and turns every failure into a browser failure that knows the last URL. {@code rerun} says
   * what the same call can do on the fresh browser that replaces one a fault ended.
   */
  private <T> T run(Cancellation cancellation, Rerun rerun, Supplier<T> operation) {
    if (released.get()) {
      throw new BrowserException(ErrorCode.BROWSER_ENVIRONMENT_CLOSED, "this browser lease was released");
    }
    try {
      return environment.queued(cancellation, operation);
    } catch (RuntimeException e) {
      throw runtime.redactions().failure(environment.sessionId, failure(cancellation, rerun, e));
    }
  }

  /**
   * Any failure as a browser failure that knows the last URL. One that met an abort says why the browser was
   * discarded: the caller's cancellation, a fault (named, with the way on), or the runtime closing it.
   */
  private BrowserException failure(Cancellation cancellation, Rerun rerun, RuntimeException thrown) {
    if (thrown instanceof BrowserException e && (e.rerunnable() || !environment.aborted() || e.leaseRebuilt())) {
      return e.url() == null && environment.lastUrl() != null ? e.withUrl(environment.lastUrl()) : e;
    }
    if (environment.aborted()) {
      return aborted(cancellation, rerun, thrown);
    }
    // A provider that broke its contract by throwing something else: still a failure the model can route.
    String reason = String.valueOf(thrown.getMessage()).lines().findFirst().orElse(thrown.getClass().getSimpleName());
    return new BrowserException(ErrorCode.BROWSER_ACTION_FAILED, "the browser failed: " + reason,
        environment.lastUrl(), false, thrown);
  }

  private BrowserException aborted(Cancellation cancellation, Rerun rerun, RuntimeException cause) {
    if (cancellation.isCancelled()) {
      return new BrowserException(ErrorCode.BROWSER_ACTION_CANCELLED,
          "the call was cancelled while the browser worked on it; that browser was discarded and the next call"
              + " opens a fresh one", environment.lastUrl(), true, cause);
    }
    LostEnvironment lost = environment.lost();
    if (lost == null) {
      return new BrowserException(ErrorCode.BROWSER_ENVIRONMENT_CLOSED,
          "the browser was discarded while it worked on this call; the next call opens a fresh one",
          environment.lastUrl(), true, cause);
    }
    String url = lost.url;
    BrowserException failure = new BrowserException(lost.fault.cause().code(), "the call did not complete: "
        + lost.fault.detail() + ". This browser was discarded; the next call opens " + lost.next()
        + ", with no page open" + (url == null ? "" : ": open " + url + " again"), url, true, cause)
        .withRecovery("browser_open", rerun != Rerun.NEVER);
    if (rerun == Rerun.READ && lost.fault.cause().code() == ErrorCode.BROWSER_CRASHED) {
      // The browser was dead: the call read nothing, and runs again on the next browser, which tells of the fault.
      return failure.withRerunnable(true);
    }
    lost.report();
    return failure;
  }

  /**
   * Runs an action and observes the page after it. A failure of the action is a {@code failed} transition; an
   * action that ran but could not be observed afterwards is {@code unknown} and fails
   * {@code BROWSER_ACTION_EVIDENCE_FAILED}: repeating it could act twice.
   */
  private Transition transition(Map<String, Object> action, ObservationBudget budget, Cancellation cancellation,
      Runnable act) {
    Refs before = environment.latest();
    Observation beforeObservation = before == null ? null : before.observation();
    String beforeId = beforeObservation == null ? null : beforeObservation.id();
    String id = "transition-" + UUID.randomUUID();
    Instant startedAt = Instant.now();
    long start = System.nanoTime();
    try {
      act.run();
    } catch (RuntimeException e) {
      runtime.recordTransition(new Transition(id, environment.sessionId.value(), environment.id,
          environment.provider.id(), environment.generation, action,
          environment.aborted() ? Transition.Outcome.UNKNOWN : Transition.Outcome.FAILED, beforeId, null, startedAt,
          Instant.now(), metrics(start, System.nanoTime(), System.nanoTime(), null), outcomeCode(e, action,
              cancellation)), beforeObservation);
      throw e;
    } finally {
      // Done or failed, the action may have changed cookies or local storage.
      runtime.actionCompleted(slot, environment);
    }
    long acted = System.nanoTime();
    Observation after;
    try {
      after = observeNow(budget, true);
    } catch (RuntimeException e) {
      runtime.recordTransition(new Transition(id, environment.sessionId.value(), environment.id,
          environment.provider.id(), environment.generation, action, Transition.Outcome.UNKNOWN, beforeId, null,
          startedAt, Instant.now(), metrics(start, acted, System.nanoTime(), null),
          ErrorCode.BROWSER_ACTION_EVIDENCE_FAILED), beforeObservation);
      if (environment.aborted()) {
        throw e;
      }
      throw new BrowserException(ErrorCode.BROWSER_ACTION_EVIDENCE_FAILED,
          action.get("kind") + " ran but the page could not be observed afterwards: " + e.getMessage(),
          environment.lastUrl(), false, e);
    }
    Transition t = new Transition(id, environment.sessionId.value(), environment.id, environment.provider.id(),
        environment.generation, action, Transition.Outcome.SUCCEEDED, beforeId, after, startedAt, Instant.now(),
        metrics(start, acted, System.nanoTime(), after), null);
    runtime.recordTransition(t, beforeObservation);
    return t;
  }

  /** The failure code a transition records: the abort's reason when there was one, else the failure's own. */
  private ErrorCode outcomeCode(RuntimeException e, Map<String, Object> action, Cancellation cancellation) {
    if (environment.aborted()) {
      if (cancellation.isCancelled()) {
        return ErrorCode.BROWSER_ACTION_CANCELLED;
      }
      LostEnvironment lost = environment.lost();
      return lost != null ? lost.fault.cause().code() : ErrorCode.BROWSER_ENVIRONMENT_CLOSED;
    }
    return e instanceof BrowserException b ? b.code() : ErrorCode.BROWSER_ACTION_FAILED;
  }

  private static Transition.Metrics metrics(long start, long acted, long done, Observation after) {
    return new Transition.Metrics((done - start) / 1_000_000, (acted - start) / 1_000_000, (done - acted) / 1_000_000,
        after == null ? 0 : after.text().length(), after == null ? 0 : after.elements().size(),
        after != null && after.textTruncated(), after != null && after.elementsTruncated());
  }

  /** Only absolute http(s) URLs without embedded credentials are navigated to. */
  static void checkUrl(String url) {
    URI uri;
    try {
      uri = new URI(url);
    } catch (URISyntaxException | NullPointerException e) {
      throw new BrowserException(ErrorCode.BROWSER_INVALID_URL, "the url argument is not a valid URL");
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
