package dev.periscope.browser.runtime;

import dev.periscope.api.browser.BrowserSessionId;
import dev.periscope.api.browser.Observation;
import dev.periscope.api.browser.Transition;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Records each session ({@link RecordingSettings}): after each action, on the environment's queue,
 * only the frame is taken (the provider's cheap half-size viewport JPEG, masked); the attachment
 * and the rows are written on this recorder's own thread, in order, so the action does not wait for
 * them. Everything page-derived is redacted here as tool results are, before it is kept. Off, it
 * costs an action one field read. A recording that cannot be written only warns: it never changes
 * an action's result.
 */
final class SessionRecorder implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(SessionRecorder.class);

  /**
   * No HTML escaping: a secret holding {@code = < > & '} is written as itself, so that redaction
   * finds it.
   */
  private static final com.google.gson.Gson JSON =
      new com.google.gson.GsonBuilder().disableHtmlEscaping().create();

  private final RecordingSettings settings;
  private final RecordingStore store;
  private final Redactions redactions;
  private final ExecutorService writer;

  /**
   * Where frames are taken, each waiting for its environment's turn: a thread per frame under way
   * (never a bounded pool: a frame whose turn comes must find a thread).
   */
  private final ExecutorService captures;

  /** Frames taken or waiting for their turn, not yet handed to the writer. */
  private final java.util.concurrent.atomic.AtomicInteger pending =
      new java.util.concurrent.atomic.AtomicInteger();

  SessionRecorder(RecordingSettings settings, RecordingStore store, Redactions redactions) {
    this.settings = settings;
    this.store = store;
    this.redactions = redactions;
    this.writer =
        settings.mode() == RecordingSettings.Mode.OFF
            ? null
            : Executors.newSingleThreadExecutor(
                r -> {
                  Thread t = new Thread(r, "periscope-recorder");
                  t.setDaemon(true);
                  return t;
                });
    this.captures =
        writer == null
            ? null
            : Executors.newCachedThreadPool(
                r -> {
                  Thread t = new Thread(r, "periscope-recorder-frame");
                  t.setDaemon(true);
                  return t;
                });
  }

  boolean on() {
    return writer != null;
  }

  /**
   * After transition {@code t} of {@code environment}'s session (caller holds the queue): keeps
   * what the call already has (the transition, the observation's text and page events), and
   * reserves the environment's next turn for the frame, taken on a thread of the recorder's once
   * this call has left: the page as the action left it, before any later action, while the agent
   * reads the result. An environment aborted by then, or an action of unknown outcome, gives no
   * image.
   */
  void after(
      Environment environment,
      Transition t,
      Observation after,
      List<dev.periscope.api.browser.spi.DownloadedFile> files,
      long frameTimeoutMs) {
    if (!on()) {
      return;
    }
    thisCall.set(t.id());
    BrowserSessionId session = environment.sessionId;
    RecordingStore.Frame text =
        new RecordingStore.Frame(
            session,
            t.id(),
            t.startedAt(),
            t.generation(),
            // As JSON: a secret holding a quote or a backslash is found where JSON escaped it.
            redactions.json(session, JSON.toJson(t.action())),
            t.outcome().name().toLowerCase(Locale.ROOT),
            t.error() == null ? null : t.error().name(),
            t.metrics().durationMs(),
            after == null ? redactions.text(session, environment.lastUrl()) : after.url(),
            after == null ? null : after.title(),
            after == null ? null : after.text(),
            after == null ? List.of() : after.pageEvents(),
            files.stream()
                .map(
                    f ->
                        redactions.text(
                            session,
                            f.name()
                                + " ("
                                + f.mimeType()
                                + ", "
                                + f.content().length
                                + " bytes, sha256 "
                                + f.sha256()
                                + ")"))
                .toList(),
            null);
    if (environment.aborted() || t.outcome() == Transition.Outcome.UNKNOWN) {
      submit("record transition " + t.id(), () -> store.add(text, settings.budgetBytes()));
      return;
    }
    java.util.concurrent.CompletableFuture<Void> turn = environment.queue.reserve();
    Runnable frame =
        () -> {
          byte[] shot = null;
          List<String> complaints = new java.util.ArrayList<>();
          try {
            turn.join();
            // A browser shutting down still takes it: its queue drains before it closes.
            if (!environment.aborted()) {
              shot =
                  environment.step(
                      "the recording's frame",
                      frameTimeoutMs,
                      () -> {
                        complaints.addAll(environment.delegate().recordingComplaints());
                        return environment.delegate().recordingFrame();
                      });
            }
          } catch (RuntimeException e) {
            LOG.debug("no frame of transition {} for the recording: {}", t.id(), e.getMessage());
          } finally {
            environment.queue.exit();
          }
          RecordingStore.Frame f = inFull(text, complaints, session).withImage(shot);
          submit("record transition " + t.id(), () -> store.add(f, settings.budgetBytes()));
          pending.decrementAndGet();
        };
    pending.incrementAndGet();
    try {
      captures.execute(frame);
    } catch (java.util.concurrent.RejectedExecutionException closed) {
      pending.decrementAndGet();
      turn.thenRun(environment.queue::exit);
    }
  }

  /**
   * {@code f} with every complaint, redacted, of the observations since the last frame that listed
   * only the first few, after the page events the model was told.
   */
  private RecordingStore.Frame inFull(
      RecordingStore.Frame f, List<String> complaints, BrowserSessionId session) {
    if (complaints.isEmpty()) {
      return f;
    }
    List<String> events = new java.util.ArrayList<>(f.pageEvents());
    events.add("every complaint the observations since the last frame counted, in full:");
    complaints.forEach(c -> events.add(redactions.text(session, c)));
    return f.withPageEvents(events);
  }

  /**
   * An observation the model asked for (not an action's): its page events, when it has any, are
   * kept too (a row without an image or a transition), so the recording has every page event the
   * model was told of. Returns the observation.
   */
  Observation observed(Environment environment, Observation o) {
    if (on() && !o.pageEvents().isEmpty()) {
      RecordingStore.Frame events =
          new RecordingStore.Frame(
              environment.sessionId,
              o.id(),
              java.time.Instant.now(),
              o.generation(),
              "{\"kind\":\"observe\"}",
              "succeeded",
              null,
              0,
              o.url(),
              o.title(),
              null,
              o.pageEvents(),
              List.of(),
              null);
      submit("record page events", () -> store.add(events, settings.budgetBytes()));
    }
    return o;
  }

  /** The transition the current call on this thread made, if it made one. */
  private final ThreadLocal<String> thisCall = new ThreadLocal<>();

  /** A call of a lease begins on this thread: it has made no transition yet. */
  void callStarts() {
    if (on()) {
      thisCall.remove();
    }
  }

  /** The most characters of a failure a recording keeps. */
  private static final int MAX_FAILURE_CHARS = 2_000;

  /**
   * A call ended with {@code failure} (already redacted): kept with the transition it made, if any.
   * Returns the failure, for the caller to throw.
   */
  dev.periscope.api.browser.BrowserException failed(
      Environment environment, dev.periscope.api.browser.BrowserException failure) {
    if (on()) {
      String transition = thisCall.get();
      thisCall.remove();
      String text = failure.getMessage() + "\n" + failure.failureLine();
      String kept =
          text.length() <= MAX_FAILURE_CHARS ? text : text.substring(0, MAX_FAILURE_CHARS);
      java.time.Instant at = java.time.Instant.now();
      submit("record a failure", () -> store.failure(environment.sessionId, at, transition, kept));
    }
    return failure;
  }

  /** An environment of the session closed: {@code on-failure} drops a recording with no failure. */
  void environmentClosed(BrowserSessionId session) {
    if (settings.mode() == RecordingSettings.Mode.ON_FAILURE) {
      submit("end the recording of " + session, () -> store.dropUnlessFailed(session));
    }
  }

  /** Deletes the session's recording with its checkpoint; returns once it is gone. */
  void delete(BrowserSessionId session) {
    if (!on()) {
      store.delete(session);
      return;
    }
    try {
      writer.submit(() -> store.delete(session)).get(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
      LOG.warn("the recording of browser session {} was not deleted: {}", session, e.toString());
    }
  }

  private void submit(String what, Runnable work) {
    try {
      writer.execute(
          () -> {
            try {
              work.run();
            } catch (RuntimeException e) {
              LOG.warn("could not {}: {}", what, e.getMessage());
            }
          });
    } catch (java.util.concurrent.RejectedExecutionException closed) {
      LOG.debug("the recorder is closed: did not {}", what);
    }
  }

  /** Waits (bounded) for the frames already taken to be written, then stops the writer. */
  @Override
  public void close() {
    if (writer == null) {
      return;
    }
    captures.shutdown();
    try {
      captures.awaitTermination(10, TimeUnit.SECONDS);
      writer.shutdown();
      writer.awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Waits for every write submitted so far; for tests and operators that read right after. */
  void flush() {
    if (on()) {
      try {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (pending.get() > 0 && System.nanoTime() < end) {
          Thread.sleep(5);
        }
        writer.submit(() -> {}).get(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
        LOG.warn("the recorder did not catch up: {}", e.toString());
      }
    }
  }
}
