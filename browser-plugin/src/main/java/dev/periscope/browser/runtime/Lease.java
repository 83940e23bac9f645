package dev.periscope.browser.runtime;

import dev.periscope.api.Cancellation;
import dev.periscope.api.browser.BrowserAction;
import dev.periscope.api.browser.BrowserException;
import dev.periscope.api.browser.BrowserLease;
import dev.periscope.api.browser.BrowserSessionId;
import dev.periscope.api.browser.ErrorCode;
import dev.periscope.api.browser.Extraction;
import dev.periscope.api.browser.Observation;
import dev.periscope.api.browser.ObservationBudget;
import dev.periscope.api.browser.Screenshot;
import dev.periscope.api.browser.Transition;
import dev.periscope.api.browser.spi.ProviderElement;
import dev.periscope.api.browser.spi.ProviderObservation;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * One caller's share of an environment. Every operation goes through the environment's queue; every
 * admitted action yields a transition, recorded with the runtime whether it succeeded or not.
 */
final class Lease implements BrowserLease {
  final DefaultBrowserRuntime runtime;
  final Slot slot;
  final Environment environment;
  final AtomicBoolean released = new AtomicBoolean();
  private final CallFailures failures;

  /**
   * How long the acquiring call waited for the environment (a browser starting, a session
   * restored), in ns, until the lease's first call takes it: an action counts it in its transition,
   * any other call (or an action refused before it ran) drops it, so no later call reports it.
   */
  private final java.util.concurrent.atomic.AtomicLong environmentWait;

  Lease(DefaultBrowserRuntime runtime, Slot slot, Environment environment, long environmentWait) {
    this.runtime = runtime;
    this.slot = slot;
    this.environment = environment;
    this.failures = new CallFailures(environment);
    this.environmentWait = new java.util.concurrent.atomic.AtomicLong(environmentWait);
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
    return run(
        cancellation,
        CallFailures.Rerun.READ,
        () -> runtime.recorder().observed(environment, observeNow(budget, true)));
  }

  /**
   * Observes on the queue, with every secret filled in this session redacted; {@code shown} when
   * the model sees this observation. Caller holds the queue.
   */
  Observation observeNow(ObservationBudget budget, boolean shown) {
    ProviderObservation seen =
        environment.step(
            "observing the page",
            timeouts().actionMs(),
            () -> environment.delegate().observe(budget));
    Refs before = environment.latest();
    Observation o =
        environment.record(runtime.redactions().observation(environment.sessionId, seen), shown);
    if (o.challenge() != null
        && (before == null || !sameChallenge(before.observation().challenge(), o.challenge()))) {
      recordChallenge(before == null ? null : before.observation(), o);
    }
    return o;
  }

  private static boolean sameChallenge(
      dev.periscope.api.browser.PageChallenge a, dev.periscope.api.browser.PageChallenge b) {
    return a != null
        && a.kind().equals(b.kind())
        && a.vendor().equals(b.vendor())
        && a.frame().equals(b.frame());
  }

  /**
   * The audit trail's {@code challenge} record: the page began to show a challenge (its vendor and
   * kind are the cause), whatever the call that saw it.
   */
  private void recordChallenge(Observation before, Observation seen) {
    java.time.Instant now = java.time.Instant.now();
    String cause =
        (seen.challenge().vendor().isEmpty() ? "" : seen.challenge().vendor() + " ")
            + seen.challenge().kind();
    journal("challenge", cause, Transition.Outcome.SUCCEEDED, before, seen, now, 0);
  }

  /**
   * An event of the session's journal in its audit trail: not an action of the model's, but what
   * happened to its page ({@code kind}: a challenge seen, a handoff), {@code cause} saying what.
   */
  void journal(
      String kind,
      String cause,
      Transition.Outcome outcome,
      Observation before,
      Observation after,
      java.time.Instant startedAt,
      long durationMs) {
    runtime.recordTransition(
        environment.event(
            kind,
            cause,
            outcome,
            before == null ? null : before.id(),
            after,
            startedAt,
            durationMs),
        before,
        environment.placement());
  }

  /**
   * A gesture at coordinates with the view of the environment's latest screenshot, the points
   * checked against it; any other action as it is. {@code BROWSER_STALE_SCREENSHOT} when there is
   * no viewport screenshot to take coordinates from.
   */
  @SuppressWarnings("unchecked")
  private <R> BrowserAction<R> atScreenshot(BrowserAction<R> action) {
    if (!(action instanceof BrowserAction.PointAt point)) {
      return action;
    }
    dev.periscope.api.browser.ScreenshotView view = environment.lastScreenshot();
    if (view == null || view.fullPage()) {
      throw BrowserException.of(
              ErrorCode.BROWSER_STALE_SCREENSHOT,
              (view == null
                      ? "there is no screenshot of this page to take coordinates from"
                      : "the latest screenshot is of the full page")
                  + ": take one of the viewport with browser_screenshot, then name CSS pixels of"
                  + " it")
          .withUrl(environment.lastUrl());
    }
    point.requireInside(view);
    return (BrowserAction<R>) point.withView(view);
  }

  RuntimeSettings.Timeouts timeouts() {
    return environment.timeouts();
  }

  @Override
  public <R> Acted<R> act(
      BrowserAction<R> requested, ObservationBudget budget, Cancellation cancellation) {
    long waited = environmentWait.getAndSet(0);
    validate(requested);
    BrowserAction<R> action = atScreenshot(requested);
    return run(
        cancellation,
        action.repeatable() ? CallFailures.Rerun.REPEATABLE : CallFailures.Rerun.NEVER,
        () -> {
          ProviderElement target;
          if (action.target() == null) {
            target = null;
            if (action.actsOnThePage()) {
              environment.admitOnPage();
            }
          } else if (!action.changesItsTarget()) {
            // Waiting and scrolling change nothing a challenge guards.
            target =
                environment.resolve(action.target().observationId(), action.target().elementRef());
          } else {
            target =
                environment.resolveForAction(
                    action.target().observationId(), action.target().elementRef());
          }
          if (target != null && typedPassword(action, target)) {
            @SuppressWarnings("unchecked") // Fill and Type both answer Done
            BrowserAction<BrowserAction.Done> done =
                (BrowserAction<BrowserAction.Done>) (BrowserAction<?>) action;
            @SuppressWarnings("unchecked")
            Acted<R> typed =
                (Acted<R>)
                    transition(
                        done,
                        budget,
                        cancellation,
                        waited,
                        () -> fillTypedPassword(action, target));
            return typed;
          }
          if (target != null) {
            action.admit(target);
          }
          ProviderElement destination =
              action.destination() == null
                  ? null
                  : environment.resolveForAction(
                      action.destination().observationId(), action.destination().elementRef());
          if (action instanceof BrowserAction.PageAction<R> page) {
            return transition(
                action,
                budget,
                cancellation,
                waited,
                () ->
                    environment.step(
                        action.step(),
                        action.timeoutMs(timeouts().actionMs(), timeouts().navigationMs()),
                        () -> page.accept(environment.delegate().actions(), target, destination)));
          }
          // The runtime's own actions. Their browser calls are steps of their own: the time a
          // person takes to approve is not the browser's.
          return transition(
              action, budget, cancellation, waited, () -> ownAction(action, target, cancellation));
        });
  }

  /** Performs one of the runtime's own actions (a script, a credential fill). */
  @SuppressWarnings("unchecked") // R is the action's own result type
  private <R> R ownAction(
      BrowserAction<R> action, ProviderElement target, Cancellation cancellation) {
    return action instanceof BrowserAction.Evaluate script
        ? (R) runtime.scripting().run(this, script, cancellation)
        : (R) fillCredential((BrowserAction.FillCredential) action, target, cancellation);
  }

  /**
   * Checks what can be checked before the queue: the action's own fields, and that a ref comes with
   * its observation.
   */
  private void validate(BrowserAction<?> action) {
    try {
      action.validate();
    } catch (BrowserException e) {
      throw e.url() == null && environment.lastUrl() != null ? e.withUrl(environment.lastUrl()) : e;
    }
    if (action.target() != null) {
      requireObservation(action.target().observationId(), action.target().elementRef());
    }
    if (action.destination() != null) {
      requireObservation(action.destination().observationId(), action.destination().elementRef());
    }
  }

  /**
   * Fills a credential into a password or other field: the channel resolves the secret, checks the
   * field's origins, asks for approval and fills; the session redacts the secret from then on.
   * Caller holds the queue.
   */
  private BrowserAction.FillCredential.Filled fillCredential(
      BrowserAction.FillCredential action, ProviderElement target, Cancellation cancellation) {
    int chars =
        runtime
            .credentials()
            .fill(
                credentialField(target),
                action.credentialRef(),
                cancellation,
                (secret, own) -> {
                  runtime
                      .redactions()
                      .remember(environment.sessionId, action.credentialRef(), secret);
                  guardEgress(action.credentialRef(), secret, own);
                });
    return new BrowserAction.FillCredential.Filled(chars);
  }

  /**
   * Whether the action puts a password the model supplies into a password field, and the project
   * allows that ({@code credentials.modelTypedPasswords: allow}); otherwise the action's own {@code
   * admit} refuses a password field.
   */
  private boolean typedPassword(BrowserAction<?> action, ProviderElement target) {
    return action.enteredText() != null
        && "password".equals(target.inputType())
        && runtime.credentials().allowsTypedPasswords();
  }

  /**
   * Puts a password the model supplies into a password field as a credential goes in: the value
   * becomes a secret of the session first (redacted as {@code [REDACTED:typed-password]} in every
   * observation, extraction and failure from then on), then the provider sets it in the field's own
   * document, never as keys, which would go wherever the focus is, marks the field so no
   * observation reads it and masks it in screenshots. A typed text's line break is not a key here:
   * the model presses Enter afterwards.
   */
  private BrowserAction.Done fillTypedPassword(BrowserAction<?> action, ProviderElement target) {
    String value = action.enteredText();
    // Typed text presses Enter at a line break; a password is set whole, so it would not be.
    if (action instanceof BrowserAction.Type && value.indexOf('\n') >= 0) {
      throw new BrowserException(
          ErrorCode.BROWSER_INVALID_ARGUMENT,
          "/text: a password goes into its field whole, so a line break in it is not pressed;"
              + " type the password without it, then press Enter with browser_press");
    }
    dev.periscope.api.host.Secret secret = dev.periscope.api.host.Secret.of(value);
    if (!secret.isEmpty()) {
      runtime.redactions().rememberTypedPassword(environment.sessionId, secret);
    }
    var env = environment.delegate();
    List<String> chain =
        environment.step(
            "reading the field's origin", timeouts().actionMs(), () -> env.originChain(target));
    guardEgress(Redactions.TYPED_PASSWORD, secret, SecretEgress.origins(chain.get(0)));
    environment.step(
        "filling the password",
        timeouts().actionThenNavigationMs(),
        () -> env.fillCredential(target, secret, chain));
    return BrowserAction.Done.DONE;
  }

  /** Guards the way out of {@code secret} before it goes into the page ({@link SecretEgress}). */
  private void guardEgress(
      String ref,
      dev.periscope.api.host.Secret secret,
      List<dev.periscope.api.host.OriginPattern> own) {
    if (secret.isEmpty()) {
      return;
    }
    SecretEgress egress = runtime.redactions().egress(environment.sessionId);
    egress.add(ref, secret, own);
    egress.arm(runtime, environment);
  }

  /**
   * A field as the credential channel reaches it: reading its origins and filling it are steps of
   * their own.
   */
  private CredentialChannel.Field credentialField(ProviderElement target) {
    var env = environment.delegate();
    return new CredentialChannel.Field() {
      @Override
      public String name() {
        return target.name();
      }

      @Override
      public List<String> originChain() {
        return environment.step(
            "reading the field's origin", timeouts().actionMs(), () -> env.originChain(target));
      }

      @Override
      public int fill(dev.periscope.api.host.Secret secret, List<String> expectedChain) {
        return environment.step(
            "filling the credential",
            timeouts().actionThenNavigationMs(),
            () -> env.fillCredential(target, secret, expectedChain));
      }
    };
  }

  private void optionalElement(String observationId, String elementRef) {
    if (elementRef != null) {
      requireObservation(observationId, elementRef);
    }
  }

  private ProviderElement resolveOptional(String observationId, String elementRef) {
    return elementRef == null ? null : environment.resolve(observationId, elementRef);
  }

  @Override
  public Screenshot screenshot(boolean fullPage, Cancellation cancellation) {
    return run(
        cancellation,
        CallFailures.Rerun.READ,
        () -> {
          Refs refs = environment.latest();
          Observation o =
              refs != null ? refs.observation() : observeNow(new ObservationBudget(0, 0), false);
          var shot =
              environment.step(
                  "the screenshot",
                  timeouts().actionMs(),
                  () -> environment.delegate().screenshot(fullPage));
          environment.screenshotTaken(shot.view());
          // The view's URL as the model may see it: a secret filled in this session redacted.
          dev.periscope.api.browser.ScreenshotView view =
              shot.view() == null
                  ? null
                  : new dev.periscope.api.browser.ScreenshotView(
                      runtime.redactions().text(environment.sessionId, shot.view().url()),
                      shot.view().fullPage(),
                      shot.view().viewportWidth(),
                      shot.view().viewportHeight(),
                      shot.view().devicePixelRatio(),
                      shot.view().scrollX(),
                      shot.view().scrollY(),
                      shot.view().pageId());
          // The picture's own page names it: the latest observation may be of another (a navigation
          // that failed since, a tab that closed itself and left another current).
          return new Screenshot(
              shot.png(),
              shot.width(),
              shot.height(),
              o.id(),
              shot.url() == null
                  ? o.url()
                  : runtime.redactions().text(environment.sessionId, shot.url()),
              shot.title() == null
                  ? o.title()
                  : runtime.redactions().text(environment.sessionId, shot.title()),
              view);
        });
  }

  @Override
  public dev.periscope.api.browser.HandoffOutcome handOff(
      String message, long timeoutMs, ObservationBudget budget, Cancellation cancellation) {
    var desk =
        runtime
            .handoffs()
            .orElseThrow(
                () ->
                    new BrowserException(
                        ErrorCode.BROWSER_CAPABILITY_UNSUPPORTED,
                        "this host's browser plugin has no live view to hand pages over with"));
    // The caller's cancellation ends the handoff (the page stays as the person left it); only
    // while the call still waits for the browser does it stop the call, as it stops others.
    AtomicBoolean holding = new AtomicBoolean();
    Cancellation queueing = new Cancellation();
    try (Cancellation.Registration r =
        cancellation.onCancel(
            () -> {
              if (!holding.get()) {
                queueing.cancel();
              }
            })) {
      return run(
          queueing,
          CallFailures.Rerun.NEVER,
          () -> {
            holding.set(true);
            if (cancellation.isCancelled()) {
              throw BrowserException.of(
                  ErrorCode.BROWSER_ACTION_CANCELLED,
                  "the call was cancelled before the page was handed over; nothing was done");
            }
            return new LeaseHandoff(this).hold(desk, message, timeoutMs, budget, cancellation);
          });
    }
  }

  @Override
  public Extraction extract(
      String kind,
      String observationId,
      String regionRef,
      int limit,
      int maxFieldChars,
      Cancellation cancellation) {
    optionalElement(observationId, regionRef);
    return run(
        cancellation,
        regionRef == null ? CallFailures.Rerun.READ : CallFailures.Rerun.NEVER,
        () -> {
          ProviderElement region = resolveOptional(observationId, regionRef);
          // The provider cuts each value a little past the limit and the cut to the limit follows
          // redaction, so the
          // caller's choice of limit cannot end a value inside a secret and show its first
          // characters.
          Extraction raw =
              environment.step(
                  "extracting " + kind,
                  timeouts().actionMs(),
                  () ->
                      environment
                          .delegate()
                          .extract(kind, region, limit, maxFieldChars + Redactions.CUT_SLACK));
          Extraction e =
              Redactions.cut(
                  runtime.redactions().extraction(environment.sessionId, raw), maxFieldChars);
          return new Extraction(
              kind,
              environment.lastUrl(),
              regionRef == null ? null : observationId,
              e.columns(),
              e.rows(),
              e.total());
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
      // A handoff still waiting for its person ends first, so the release's checkpoint has the
      // page as they left it rather than waiting out the cleanup timeout.
      var view = handingOff;
      if (view != null) {
        view.end(dev.periscope.api.browser.HandoffOutcome.Ending.CANCELLED);
      }
      runtime.release(slot);
    }
  }

  /** The live view of the handoff running on this lease, if one is. */
  volatile dev.periscope.browser.handoff.LiveView handingOff;

  private void requireObservation(String observationId, String elementRef) {
    if (observationId == null || observationId.isBlank()) {
      throw BrowserException.of(
              ErrorCode.BROWSER_OBSERVATION_REQUIRED,
              "element \"" + elementRef + "\" needs the observation_id it came from")
          .withUrl(environment.lastUrl());
    }
  }

  /**
   * Runs on the queue and turns every failure into a browser failure that knows the last URL.
   * {@code rerun} says what the same call can do on the fresh browser that replaces one a fault
   * ended.
   */
  private <T> T run(Cancellation cancellation, CallFailures.Rerun rerun, Supplier<T> operation) {
    // A call that is not an action does not count the environment's wait; no later one may either.
    environmentWait.set(0);
    if (released.get()) {
      throw new BrowserException(
          ErrorCode.BROWSER_ENVIRONMENT_CLOSED, "this browser lease was released");
    }
    runtime.recorder().callStarts();
    try {
      return environment.queued(cancellation, operation);
    } catch (RuntimeException e) {
      BrowserException failure = failures.failure(cancellation, rerun, e);
      throw runtime
          .recorder()
          .failed(environment, runtime.redactions().failure(environment.sessionId, failure));
    }
  }

  /**
   * Runs an action and observes the page after it. A failure of the action is a {@code failed}
   * transition; an action that ran but could not be observed afterwards is {@code unknown} and
   * fails {@code BROWSER_ACTION_EVIDENCE_FAILED}: repeating it could act twice. {@code waited}:
   * what the call waited for its environment before (ns), part of its duration.
   */
  private <R> Acted<R> transition(
      BrowserAction<R> performed,
      ObservationBudget budget,
      Cancellation cancellation,
      long waited,
      Supplier<R> act) {
    Refs before = environment.latest();
    TransitionRecording recording =
        new TransitionRecording(
            runtime,
            environment,
            performed.describe(),
            before == null ? null : before.observation(),
            waited);
    R result;
    try {
      result = act.get();
    } catch (RuntimeException e) {
      recording.end(
          environment.aborted() ? Transition.Outcome.UNKNOWN : Transition.Outcome.FAILED,
          null,
          System.nanoTime(),
          failures.outcomeCode(cancellation, e));
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
      recording.end(
          Transition.Outcome.UNKNOWN, null, acted, ErrorCode.BROWSER_ACTION_EVIDENCE_FAILED);
      if (environment.aborted()) {
        throw e;
      }
      throw BrowserException.of(
              ErrorCode.BROWSER_ACTION_EVIDENCE_FAILED,
              recording.action.get("kind")
                  + " ran but the page could not be observed afterwards: "
                  + e.getMessage(),
              e)
          .withUrl(environment.lastUrl());
    }
    // A file's name is the page's to choose: a filled secret in it is redacted as in any text.
    var files =
        environment.delegate().takeDownloads().stream()
            .map(
                f ->
                    new dev.periscope.api.browser.spi.DownloadedFile(
                        runtime.redactions().text(environment.sessionId, f.name()),
                        f.mimeType(),
                        f.sha256(),
                        f.content()))
            .toList();
    return new Acted<>(
        result, recording.end(Transition.Outcome.SUCCEEDED, after, acted, null, files), files);
  }
}
